import { expect } from "chai";
import { AuthToken } from "../src/index.js";

describe("auth token (barkd's format: 0x00 ‖ 32 bytes, base64url without padding)", () => {
  it("encodes 33 bytes (version 0 + secret) as 44 base64url characters starting with A", () => {
    const t = AuthToken.generate().encode();
    expect(t).to.have.length(44);
    expect(t).to.match(/^A[A-Za-z0-9_-]{43}$/);
    expect(AuthToken.parse(t)!.equals(AuthToken.parse(t)!)).to.equal(true);
  });

  it("derives the same token from the same secret", () => {
    const secret = Buffer.alloc(32, 7);
    const a = AuthToken.fromSecret(secret).encode();
    expect(a).to.equal(Buffer.concat([Buffer.from([0]), secret]).toString("base64url"));
    expect(AuthToken.fromSecret(secret).equals(AuthToken.parse(a)!)).to.equal(true);
  });

  it("trims surrounding whitespace when parsing", () => {
    const t = AuthToken.generate().encode();
    expect(AuthToken.parse(`  ${t}\n`)).to.not.equal(undefined);
  });

  it("rejects padding, other alphabets, wrong lengths and unknown versions", () => {
    const secret = Buffer.alloc(32, 1);
    const good = AuthToken.fromSecret(secret).encode();
    expect(AuthToken.parse(good + "=")).to.equal(undefined);
    expect(AuthToken.parse(Buffer.concat([Buffer.from([0]), Buffer.alloc(32, 0xfb)]).toString("base64"))).to.equal(undefined); // '+' '/'
    expect(AuthToken.parse(good.slice(0, 43))).to.equal(undefined);
    expect(AuthToken.parse(Buffer.alloc(34).toString("base64url"))).to.equal(undefined);
    expect(AuthToken.parse(Buffer.concat([Buffer.from([1]), secret]).toString("base64url"))).to.equal(undefined);
    expect(AuthToken.parse("")).to.equal(undefined);
  });

  it("compares by value and never prints its secret", () => {
    const a = AuthToken.generate();
    const b = AuthToken.generate();
    expect(a.equals(b)).to.equal(false);
    expect(String(a)).to.not.contain(a.encode());
    expect(JSON.stringify({ a })).to.not.contain(a.encode());
  });
});
