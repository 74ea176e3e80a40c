import { expect } from "chai";
import jsqrModule from "jsqr";
import { PNG } from "pngjs";
import { bech32m } from "@scure/base";
import { decodeArkAddress } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { regtestWallet, sharedDevnet } from "../src/shared-devnet.js";
import { BOARD_DAEMON_CONFIG } from "./boards-harness.js";
import { arkDaemonConfig } from "./ark-harness.js";

// jsqr is CommonJS with `exports.default`
const jsQR = (jsqrModule as unknown as { default: typeof import("jsqr").default }).default;

interface Bip321 { bip321: string; ark?: string; bolt11?: string; onchain?: string; qr?: string }

/** The URI read back with the platform's URL parser (independent of the code under test). */
function parse(uri: string): { scheme: string; body: string; params: [string, string][] } {
  const u = new URL(uri);
  return { scheme: u.protocol, body: u.pathname, params: [...u.searchParams.entries()] };
}

/** Decodes a PNG data URI's QR symbol back to its text. */
function decodeQr(dataUri: string): string {
  const prefix = "data:image/png;base64,";
  expect(dataUri.startsWith(prefix), dataUri.slice(0, 40)).to.equal(true);
  const png = PNG.sync.read(Buffer.from(dataUri.slice(prefix.length), "base64"));
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!code) throw new Error("no QR code found in the image");
  return code.data;
}

/**
 * Decodes an SVG data URI's QR symbol back to its text: the dark modules of its stroke path
 * (`M x y.5 h n`, `m dx dy h n`, one row of modules per y) are drawn into a bitmap, 8 pixels per
 * module, which the same independent decoder reads.
 */
function decodeSvgQr(dataUri: string): string {
  const prefix = "data:image/svg+xml;base64,";
  expect(dataUri.startsWith(prefix), dataUri.slice(0, 40)).to.equal(true);
  const svg = Buffer.from(dataUri.slice(prefix.length), "base64").toString("utf8");
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const path = /<path[^>]*stroke="[^"]*"[^>]*d="([^"]+)"/.exec(svg)?.[1];
  if (!size || !path) throw new Error("not a QR SVG");
  const dark: boolean[][] = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  let x = 0;
  let y = 0;
  for (const [, cmd, a, b] of path.matchAll(/([MmHhVv])\s*(-?[\d.]+)(?:[ ,](-?[\d.]+))?/g)) {
    const n = Number(a);
    if (cmd === "M") [x, y] = [n, Number(b)];
    else if (cmd === "m") [x, y] = [x + n, y + Number(b)];
    else if (cmd === "h") {
      for (let i = 0; i < n; i++) dark[Math.floor(y)]![x + i] = true;
      x += n;
    } else throw new Error(`unexpected path command ${cmd}`);
  }
  const scale = 8;
  const px = size * scale;
  const rgba = new Uint8ClampedArray(px * px * 4);
  for (let i = 0; i < px * px; i++) {
    const v = dark[Math.floor(Math.floor(i / px) / scale)]![Math.floor((i % px) / scale)] ? 0 : 255;
    rgba.set([v, v, v, 255], i * 4);
  }
  const code = jsQR(rgba, px, px);
  if (!code) throw new Error("no QR code found in the SVG");
  return code.data;
}

describe("BIP-321 payment URIs over HTTP (POST /api/v1/wallet/bip321)", function () {
  this.timeout(120_000);
  let d: Daemon;
  let post: (body: unknown, query?: string, path?: string) => Promise<{ status: number; text: string; json: unknown; type: string }>;

  before(async () => {
    await sharedDevnet();
    d = await startDaemon({ config: BOARD_DAEMON_CONFIG });
    const created = await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
    expect(created.status, created.text).to.equal(200);
    post = async (body, query = "", path = "/api/v1/wallet/bip321") => {
      const r = await d.api("POST", `${path}${query}`, { body });
      return { status: r.status, text: r.text, json: r.json, type: r.headers.get("content-type") ?? "" };
    };
  });
  after(async () => {
    if (d) { await d.stop(); cleanup(d.datadir); }
  });

  /** The wallet signs with the address only if it derived its key: proves the Ark address is the wallet's. */
  async function walletOwns(address: string): Promise<boolean> {
    const r = await d.api("POST", "/api/v1/message/sign", { body: { message: "own", address } });
    return r.status === 200;
  }

  it("an empty body gives a fresh Ark address of the wallet and nothing else", async () => {
    const a = await post({});
    expect(a.status, a.text).to.equal(200);
    const b = a.json as Bip321;
    expect(Object.keys(b).sort()).to.deep.equal(["ark", "bip321"]);
    expect(b.bip321).to.equal(`bitcoin:?ark=${b.ark}`);
    expect(parse(b.bip321)).to.deep.equal({ scheme: "bitcoin:", body: "", params: [["ark", b.ark!]] });
    expect(decodeArkAddress(b.ark!).testnet).to.equal(true);
    expect(await walletOwns(b.ark!)).to.equal(true);
    const again = (await post({})).json as Bip321;
    expect(again.ark).to.not.equal(b.ark);
  });

  it("with an amount, on-chain, label and message: all in the URI, the on-chain address as tb= on regtest", async () => {
    const r = await post({ amount_sat: 123_456, onchain: true, label: "Coffee & cake", message: "Table #4 — merci" });
    expect(r.status, r.text).to.equal(200);
    const b = r.json as Bip321;
    expect(b.bolt11, "no Lightning receive rail yet: no invoice").to.equal(undefined);
    const taproot = bech32m.decode(b.onchain as `${string}1${string}`);
    expect([taproot.prefix, taproot.words[0], bech32m.fromWords(taproot.words.slice(1)).length]).to.deep.equal(["bcrt", 1, 32]);
    expect(await walletOwns(b.ark!)).to.equal(true);
    expect(parse(b.bip321)).to.deep.equal({
      scheme: "bitcoin:", body: "",
      params: [["amount", "0.00123456"], ["label", "Coffee & cake"], ["message", "Table #4 — merci"], ["tb", b.onchain!], ["ark", b.ark!]],
    });
    expect(b.bip321).to.contain("label=Coffee%20%26%20cake&message=Table%20%234%20%E2%80%94%20merci");
    const next = (await post({ onchain: true })).json as Bip321;
    expect(next.onchain).to.not.equal(b.onchain);
  });

  it("uppercase=true upper-cases the URI (destinations keep their case); refused with a lower-case label", async () => {
    const r = await post({ amount_sat: 100_000_000, onchain: true, label: "SHOP 1" }, "?uppercase=true");
    expect(r.status, r.text).to.equal(200);
    const b = r.json as Bip321;
    expect(b.bip321).to.equal(`BITCOIN:?AMOUNT=1&LABEL=SHOP%201&TB=${b.onchain!.toUpperCase()}&ARK=${b.ark!.toUpperCase()}`);
    expect(b.ark).to.equal(b.ark!.toLowerCase());
    const refused = await post({ label: "shop" }, "?uppercase=true");
    expect(refused.status).to.equal(400);
    expect(refused.json).to.deep.equal({ message: "bad request: cannot upper-case the URI: it carries a label, message, or base58 address" });
    const lowerMsg = await post({ message: "thanks" }, "?uppercase=true");
    expect(lowerMsg.status).to.equal(400);
    expect((await post({ label: "shop" }, "?uppercase=false")).status).to.equal(200);
  });

  it("refuses bad inputs with barkd's answers", async () => {
    const zero = await post({ amount_sat: 0 });
    expect(zero.status).to.equal(500);
    expect(zero.json).to.deep.equal({ message: "Failed to build BIP 321 URI: amount cannot be zero" });
    const badBool = await post({}, "?uppercase=yes");
    expect(badBool.status).to.equal(400);
    expect(badBool.type).to.contain("text/plain");
    const noBody = await d.api("POST", "/api/v1/wallet/bip321", { headers: { "content-type": "text/plain" } });
    expect(noBody.status).to.equal(415);
    const negative = await post({ amount_sat: -1 });
    expect(negative.status).to.equal(422);
    expect(negative.type).to.contain("text/plain");
    const notJson = await d.api("POST", "/api/v1/wallet/bip321", { body: "{", headers: { "content-type": "application/json" } });
    expect(notJson.status).to.equal(400);
  });

  it("the QR route answers the URI with a PNG and an SVG image that decode back to exactly it (jsQR)", async () => {
    const r = await post({ amount_sat: 5_000, onchain: true, label: "Shop" }, "", "/api/v1/wallet/bip321/qr");
    expect(r.status, r.text).to.equal(200);
    const b = r.json as Bip321;
    expect(b.bip321).to.equal(`bitcoin:?amount=0.00005&label=Shop&tb=${b.onchain}&ark=${b.ark}`);
    expect(decodeQr(b.qr!)).to.equal(b.bip321);
    const upper = (await post({ onchain: true }, "?uppercase=true&format=png", "/api/v1/wallet/bip321/qr")).json as Bip321;
    expect(upper.bip321.startsWith("BITCOIN:?TB=")).to.equal(true);
    expect(decodeQr(upper.qr!)).to.equal(upper.bip321);
    const svg = (await post({ amount_sat: 1_234 }, "?format=svg", "/api/v1/wallet/bip321/qr")).json as Bip321;
    expect(decodeSvgQr(svg.qr!)).to.equal(svg.bip321);
    expect((await post({}, "?format=gif", "/api/v1/wallet/bip321/qr")).status).to.equal(400);
  });

  it("the QR route is documented in the served OpenAPI document as tender's extension, with its format parameter and qr field", async () => {
    const doc = (await d.api("GET", "/api-docs/openapi.json", { token: null })).json as {
      paths: Record<string, Record<string, { operationId: string; description?: string; parameters?: { name: string; in: string; schema: { enum?: string[] } }[] }>>;
      components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
    };
    const op = doc.paths["/api/v1/wallet/bip321/qr"]?.post;
    expect(op?.operationId).to.equal("bip321_qr");
    expect(op?.description).to.contain("tender's extension");
    const format = op?.parameters?.find((p) => p.name === "format");
    expect(format?.in).to.equal("query");
    expect(format?.schema.enum).to.deep.equal(["png", "svg"]);
    expect(op?.parameters?.map((p) => p.name)).to.include("uppercase");
    expect(doc.components.schemas.Bip321QrResponse?.required).to.include.members(["bip321", "qr"]);
  });
});

describe("BIP-321 without an on-chain wallet or without a wallet", function () {
  this.timeout(60_000);
  let d: Daemon;
  before(async () => {
    await sharedDevnet();
    d = await startDaemon({ config: arkDaemonConfig() });
  });
  after(async () => {
    if (d) { await d.stop(); cleanup(d.datadir); }
  });

  it("422 No wallet set before a wallet exists, then 422 No onchain wallet configured for onchain:true", async () => {
    const none = await d.api("POST", "/api/v1/wallet/bip321", { body: {} });
    expect(none.status).to.equal(422);
    expect(none.json).to.deep.equal({ message: "No wallet set" });
    expect((await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() })).status).to.equal(200);
    const onchain = await d.api("POST", "/api/v1/wallet/bip321", { body: { onchain: true } });
    expect(onchain.status).to.equal(422);
    expect(onchain.json).to.deep.equal({ message: "No onchain wallet configured" });
    const ark = await d.api("POST", "/api/v1/wallet/bip321", { body: {} });
    expect(ark.status).to.equal(200);
    expect((ark.json as Bip321).bip321).to.match(/^bitcoin:\?ark=tark1/);
  });
});
