export { fakeServer, type FakeAnswer } from "./fake-http.js";
