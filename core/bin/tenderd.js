#!/usr/bin/env node
// Entry point of the tenderd daemon (the build output lives in ../dist; run `npm run build` first).
import { main } from "../dist/src/daemon/main.js";

main(process.argv.slice(2)).then((code) => process.exit(code));
