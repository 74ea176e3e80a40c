export { examplePlugin as default, examplePlugin } from "./plugin.js";
