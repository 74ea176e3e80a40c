export { VECTORS_DIR, readVectorJson, readVectorText } from "./vectors.js";
