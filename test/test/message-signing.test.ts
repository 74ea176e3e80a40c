import { expect } from "chai";
import { decodeArkAddress } from "@tender/ark-protocol";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { regtestWallet, sharedDevnet } from "../src/shared-devnet.js";
import { arkDaemonConfig } from "./ark-harness.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("message signing over HTTP (POST /api/v1/message/sign, /verify)", function () {
  this.timeout(60_000);
  let d: Daemon;
  let address: string;
  const sign = async (body: unknown) => d.api("POST", "/api/v1/message/sign", { body });
  const verify = async (body: unknown) => d.api("POST", "/api/v1/message/verify", { body });

  before(async () => {
    await sharedDevnet();
    d = await startDaemon({ config: arkDaemonConfig() });
  });
  after(async () => {
    if (d) { await d.stop(); cleanup(d.datadir); }
  });

  it("verify works without a loaded wallet; sign answers 422 No wallet set", async () => {
    // a well-formed signature that does not match: valid false, no wallet needed
    const pubkey = "02" + "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
    const r = await verify({ message: "m", signature: "00".repeat(64), pubkey });
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.equal({ valid: false });
    const s = await sign({ message: "m", address: "tark1x" });
    expect(s.status).to.equal(422);
    expect(s.json).to.deep.equal({ message: "No wallet set" });
  });

  it("signs with one of the wallet's addresses; verifies with its pubkey and with the address", async () => {
    expect((await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() })).status).to.equal(200);
    address = ((await d.api("POST", "/api/v1/wallet/addresses/next")).json as { address: string }).address;
    const message = "I control this address ✓";
    const s = await sign({ message, address });
    expect(s.status, s.text).to.equal(200);
    const { signature } = s.json as { signature: string };
    expect(signature).to.match(/^[0-9a-f]{128}$/);
    const pubkey = hex(decodeArkAddress(address).policy.userPubkey);
    expect((await verify({ message, signature, pubkey })).json).to.deep.equal({ valid: true });
    expect((await verify({ message, signature, address })).json).to.deep.equal({ valid: true });
    expect((await verify({ message, signature: signature.toUpperCase(), address })).json).to.deep.equal({ valid: true });
    // random auxiliary data: a second signature differs and verifies too
    const again = ((await sign({ message, address })).json as { signature: string }).signature;
    expect(again).to.not.equal(signature);
    expect((await verify({ message, signature: again, pubkey })).json).to.deep.equal({ valid: true });
  });

  it("a tampered message, a tampered signature or another address's key verify false", async () => {
    const message = "pay 1000 sat";
    const { signature } = (await sign({ message, address })).json as { signature: string };
    expect((await verify({ message: "pay 1001 sat", signature, address })).json).to.deep.equal({ valid: false });
    const flipped = signature.slice(0, 100) + (signature[100] === "0" ? "1" : "0") + signature.slice(101);
    expect((await verify({ message, signature: flipped, address })).json).to.deep.equal({ valid: false });
    const other = ((await d.api("POST", "/api/v1/wallet/addresses/next")).json as { address: string }).address;
    expect((await verify({ message, signature, address: other })).json).to.deep.equal({ valid: false });
  });

  it("refuses bad inputs with barkd's 400 texts", async () => {
    const bad = async (r: Promise<{ status: number; json: unknown }>, message: string | RegExp) => {
      const a = await r;
      expect(a.status).to.equal(400);
      const m = (a.json as { message: string }).message;
      if (typeof message === "string") expect(m).to.equal(message);
      else expect(m).to.match(message);
    };
    await bad(sign({ message: "m", address: "not-an-address" }), /^bad request: invalid ark address/);
    // an address of the same server whose key this wallet never derived (another wallet's)
    const foreign = await startDaemon({ config: arkDaemonConfig() });
    try {
      expect((await foreign.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() })).status).to.equal(200);
      const theirs = ((await foreign.api("POST", "/api/v1/wallet/addresses/next")).json as { address: string }).address;
      await bad(sign({ message: "m", address: theirs }), "bad request: address does not belong to this wallet or its key has not been derived");
    } finally {
      await foreign.stop();
      cleanup(foreign.datadir);
    }
    const { signature } = (await sign({ message: "m", address })).json as { signature: string };
    await bad(verify({ message: "m", signature: "abcd", address }), /^bad request: invalid signature/);
    await bad(verify({ message: "m", signature: "zz".repeat(64), address }), /^bad request: invalid signature/);
    await bad(verify({ message: "m", signature }), "exactly one of pubkey and address must be set");
    await bad(verify({ message: "m", signature, address, pubkey: hex(decodeArkAddress(address).policy.userPubkey) }), "exactly one of pubkey and address must be set");
    await bad(verify({ message: "m", signature, pubkey: "02abcd" }), /^bad request: invalid pubkey/);
    await bad(verify({ message: "m", signature, address: "tark1qqqq" }), /^bad request: invalid ark address/);
  });
});
