import { expect } from "chai";
import { checkMailboxAuthorization, decodeMailboxAuthorization, toHex } from "@tender/ark-protocol";
import { mailboxAuthorization } from "../../src/daemon/mailbox/mailbox-authorization.js";
import { randomKey } from "./fixtures.js";

describe("mailbox authorizations (reused while at least half their validity is left)", () => {
  it("gives the same authorization within half its validity, a new one after, and each is valid for the server's check", () => {
    const key = randomKey();
    const holder = { mailboxKey: () => ({ secretKey: key.sk }) };
    const t0 = 1_700_000_000_000;
    const first = mailboxAuthorization(holder, 60, t0);
    const decoded = decodeMailboxAuthorization(first);
    expect(decoded.expiry).to.equal(BigInt(t0 / 1000 + 60));
    checkMailboxAuthorization(decoded, key.pk, BigInt(t0 / 1000));
    expect(toHex(mailboxAuthorization(holder, 60, t0 + 29_000))).to.equal(toHex(first));
    const later = mailboxAuthorization(holder, 60, t0 + 31_000);
    expect(toHex(later)).to.not.equal(toHex(first));
    expect(decodeMailboxAuthorization(later).expiry).to.equal(BigInt(t0 / 1000 + 31 + 60));
    // another validity, another key, or a clock set back: a fresh one, never one outliving what was asked
    expect(decodeMailboxAuthorization(mailboxAuthorization(holder, 10, t0 + 31_000)).expiry).to.equal(BigInt(t0 / 1000 + 31 + 10));
    const other = randomKey();
    expect(decodeMailboxAuthorization(mailboxAuthorization({ mailboxKey: () => ({ secretKey: other.sk }) }, 60, t0 + 31_000)).mailboxId).to.deep.equal(other.pk);
    expect(decodeMailboxAuthorization(mailboxAuthorization(holder, 60, t0)).expiry).to.equal(BigInt(t0 / 1000 + 60));
  });
});
