import { expect } from "chai";
import { Bip321Contributors, bip321Uri, formatBtc, isUppercasable, percentEncode, uppercaseBip321Uri } from "../src/index.js";
import { buildBip321 } from "../src/bip321/bip321-builder.js";
import { qrDataUri } from "../src/bip321/bip321-qr.js";

const ARK = "tark1pm6sr0fpzqqpr9l6qnezqjy3fc4p6hzw4wdfnl8ux8x5ry5kcs64hqw5xfy3e3qeqx4cm6wgjch5w0w5xwafl2ylhyx5rjr9u0xpdzmxx5ghlgx";
const TB = "bcrt1pqsw8cnhxx90hz4v7a8fvcuvjq2cnd4r5c5x4ykaxvzx9dwkgr0xqnm9n4e";
const BOLT11 = "lntbs100u1p5j0x82sp5d0rwfh7tgrrlwsegy9rx3tzpt36cqwjqza5x4wvcjxjzscfaf6jspp5d8q7354dg3p8h0kywhqq5dq984r8f5en98hf9ln85ug0w8fx6hhs";

describe("BIP-321 URIs", () => {
  it("amounts are BTC decimals without trailing zeros", () => {
    expect(formatBtc(1n)).to.equal("0.00000001");
    expect(formatBtc(100_000n)).to.equal("0.001");
    expect(formatBtc(100_000_000n)).to.equal("1");
    expect(formatBtc(2_030_000_000n)).to.equal("20.3");
    expect(formatBtc(2_100_000_000_000_000n)).to.equal("21000000");
    expect(formatBtc(18_446_744_073_709_551_615n)).to.equal("184467440737.09551615");
  });

  it("percent-encodes all but unreserved characters, as UTF-8 with upper-case hex", () => {
    expect(percentEncode("Luke-Jr_1.0~")).to.equal("Luke-Jr_1.0~");
    expect(percentEncode("a b&c=d?e#f+g/h%")).to.equal("a%20b%26c%3Dd%3Fe%23f%2Bg%2Fh%25");
    expect(percentEncode("!'()*")).to.equal("%21%27%28%29%2A");
    expect(percentEncode("café €")).to.equal("caf%C3%A9%20%E2%82%AC");
    expect(decodeURIComponent(percentEncode("naïve & 100% sûr"))).to.equal("naïve & 100% sûr");
  });

  it("a URI with only an Ark address has an empty body and the ark parameter", () => {
    expect(bip321Uri({ ark: [ARK] })).to.equal(`bitcoin:?ark=${ARK}`);
  });

  it("parameters come in barkd's order: amount, label, message, lightning, tb, ark", () => {
    const uri = bip321Uri({ ark: [ARK], tb: [TB], lightning: [BOLT11], message: "m", label: "l", amountSat: 100_000n });
    expect(uri).to.equal(`bitcoin:?amount=0.001&label=l&message=m&lightning=${BOLT11}&tb=${TB}&ark=${ARK}`);
  });

  it("a mainnet on-chain address is the URI body", () => {
    expect(bip321Uri({ address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", amountSat: 150_000_000n }))
      .to.equal("bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=1.5");
    expect(bip321Uri({})).to.equal("bitcoin:");
  });

  it("label and message are percent-encoded and parse back with a URL parser", () => {
    const uri = bip321Uri({ label: "Coffee & cake", message: "Table #4 — merci", ark: [ARK] });
    const params = new URL(uri).searchParams;
    expect(params.get("label")).to.equal("Coffee & cake");
    expect(params.get("message")).to.equal("Table #4 — merci");
    expect(params.get("ark")).to.equal(ARK);
  });

  it("a zero amount is refused", () => {
    expect(() => bip321Uri({ amountSat: 0n })).to.throw("amount cannot be zero");
  });

  it("upper-cases a URI of bech32 destinations, amount and upper-case label", () => {
    const parts = { amountSat: 1n, label: "SHOP 1", lightning: [BOLT11], tb: [TB], ark: [ARK] };
    expect(uppercaseBip321Uri(parts)).to.equal(bip321Uri(parts).toUpperCase());
    expect(uppercaseBip321Uri(parts)).to.match(/^BITCOIN:\?AMOUNT=0\.00000001&LABEL=SHOP%201&LIGHTNING=LNTBS/);
    expect(uppercaseBip321Uri({ address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" })).to.equal("BITCOIN:BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ");
  });

  it("refuses to upper-case a lower-case label or message, or a base58 address", () => {
    expect(isUppercasable({ label: "Shop", ark: [ARK] })).to.equal(false);
    expect(isUppercasable({ message: "é", ark: [ARK] })).to.equal(false);
    expect(isUppercasable({ address: "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa" })).to.equal(false);
    expect(isUppercasable({ tb: ["2N2JD6wb56AfK4tfmM6PwdVmoYk2dCKf4Br"] })).to.equal(false);
    expect(uppercaseBip321Uri({ label: "x" })).to.equal(undefined);
  });
});

function contributors(log: string[], fail?: string) {
  const c = new Bip321Contributors();
  const part = (name: "onchain" | "ark" | "lightning", value: string) => c.contribute(name, `p-${name}`, async (r) => {
    log.push(`${name}:${r.amountSat ?? "-"}`);
    if (fail === name) throw new Error("backend down");
    return value;
  });
  part("onchain", TB);
  part("ark", ARK);
  part("lightning", BOLT11);
  return c;
}

describe("BIP-321 builder over contributors", () => {
  it("derives on-chain, Ark, then the invoice for the amount, and answers each destination", async () => {
    const log: string[] = [];
    const a = await buildBip321(contributors(log), "regtest", { amountSat: 5000n, onchain: true, label: "L" });
    expect(log).to.deep.equal(["onchain:5000", "ark:5000", "lightning:5000"]);
    expect(a).to.deep.equal({ bip321: `bitcoin:?amount=0.00005&label=L&lightning=${BOLT11}&tb=${TB}&ark=${ARK}`, ark: ARK, bolt11: BOLT11, onchain: TB });
  });

  it("asks for no on-chain address unless told, and no invoice without an amount", async () => {
    const log: string[] = [];
    const a = await buildBip321(contributors(log), "regtest", {});
    expect(log).to.deep.equal(["ark:-"]);
    expect(a).to.deep.equal({ bip321: `bitcoin:?ark=${ARK}`, ark: ARK });
  });

  it("puts the on-chain address in the body on mainnet", async () => {
    const c = new Bip321Contributors();
    c.contribute("onchain", "o", async () => "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq");
    expect((await buildBip321(c, "mainnet", { onchain: true })).bip321).to.equal("bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq");
  });

  it("leaves out the invoice when no Lightning receive rail contributes one", async () => {
    const c = new Bip321Contributors();
    c.contribute("ark", "a", async () => ARK);
    expect(await buildBip321(c, "regtest", { amountSat: 1000n })).to.deep.equal({ bip321: `bitcoin:?amount=0.00001&ark=${ARK}`, ark: ARK });
  });

  it("a zero amount fails before anything is derived, with barkd's text", async () => {
    const log: string[] = [];
    const err = await buildBip321(contributors(log), "regtest", { amountSat: 0n, onchain: true }).catch((e: Error) => e);
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.equal("Failed to build BIP 321 URI");
    expect(((err as Error).cause as Error).message).to.equal("amount cannot be zero");
    expect(log).to.deep.equal([]);
  });

  it("a failing contributor carries barkd's context", async () => {
    const err = (await buildBip321(contributors([], "onchain"), "regtest", { onchain: true }).catch((e: Error) => e)) as Error;
    expect(err.message).to.equal("Failed to build BIP 321 URI");
    expect((err.cause as Error).message).to.equal("failed to get onchain address");
    const ark = (await buildBip321(contributors([], "ark"), "regtest", {}).catch((e: Error) => e)) as Error;
    expect((ark.cause as Error).message).to.equal("failed to generate new ark address");
  });

  it("on-chain asked for without an on-chain wallet is 422 No onchain wallet configured", async () => {
    const c = new Bip321Contributors();
    c.contribute("ark", "a", async () => ARK);
    const err = (await buildBip321(c, "regtest", { onchain: true }).catch((e: Error) => e)) as Error & { status?: number };
    expect(err.message).to.equal("No onchain wallet configured");
    expect(err.status).to.equal(422);
  });

  it("upper-case refusal is barkd's 400", async () => {
    const used: string[] = [];
    const err = (await buildBip321(contributors(used), "regtest", { label: "shop", uppercase: true, onchain: true }).catch((e: Error) => e)) as Error & { status?: number };
    expect(err.status).to.equal(400);
    expect(used, "no address handed out for a refused request").to.deep.equal([]);
    const upperLabel = await buildBip321(contributors([]), "regtest", { label: "SHOP 1", uppercase: true });
    expect(upperLabel.bip321).to.equal(`BITCOIN:?LABEL=SHOP%201&ARK=${ARK.toUpperCase()}`);
    expect(err.message).to.equal("bad request: cannot upper-case the URI: it carries a label, message, or base58 address");
    const ok = await buildBip321(contributors([]), "regtest", { uppercase: true, onchain: true });
    expect(ok.bip321).to.equal(`BITCOIN:?TB=${TB.toUpperCase()}&ARK=${ARK.toUpperCase()}`);
    expect(ok.ark).to.equal(ARK);
    expect(ok.onchain).to.equal(TB);
  });

  it("a part has one contributor", () => {
    const c = new Bip321Contributors();
    c.contribute("ark", "a", async () => ARK);
    expect(() => c.contribute("ark", "b", async () => ARK)).to.throw("contributed by both plugin a and plugin b");
  });
});

describe("BIP-321 QR images", () => {
  it("a square PNG data URI", async () => {
    const uri = await qrDataUri(`bitcoin:?ark=${ARK}`, "png");
    expect(uri.startsWith("data:image/png;base64,")).to.equal(true);
    const png = Buffer.from(uri.slice("data:image/png;base64,".length), "base64");
    expect(png.subarray(0, 8).toString("hex")).to.equal("89504e470d0a1a0a");
    expect(png.subarray(12, 16).toString("latin1")).to.equal("IHDR");
    expect(png.readUInt32BE(16)).to.equal(png.readUInt32BE(20));
    expect(png.readUInt32BE(16)).to.be.greaterThan(100);
  });

  it("an SVG data URI", async () => {
    const uri = await qrDataUri("BITCOIN:?ARK=X", "svg");
    expect(uri.startsWith("data:image/svg+xml;base64,")).to.equal(true);
    expect(Buffer.from(uri.slice(26), "base64").toString("utf8")).to.match(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*viewBox="0 0 \d+ \d+"/);
  });
});
