#!/usr/bin/env node
// Entry point of the tenderd daemon (the build output lives in ../dist; run `npm run build` first).
import { setFlagsFromString } from "node:v8";

// Schnorr signing (and every secp256k1 operation where the native addon does not load) runs as
// WebAssembly (tiny-secp256k1). V8 first runs WebAssembly in its baseline
// tier and optimizes a function only after many calls; a daemon makes a few dozen crypto calls per
// payment, so payments ran on the slow tier for their first hundreds. Optimized code from the
// first call instead (set before the module is compiled, hence the dynamic import below).
setFlagsFromString("--no-liftoff");

const { runTenderd } = await import("../dist/src/tenderd.js");
runTenderd(process.argv.slice(2)).then((code) => process.exit(code));
