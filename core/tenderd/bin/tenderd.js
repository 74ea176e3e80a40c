#!/usr/bin/env node
// Entry point of the tenderd daemon (the build output lives in ../dist; run `npm run build` first).
import { runTenderd } from "../dist/src/tenderd.js";

runTenderd(process.argv.slice(2)).then((code) => process.exit(code));
