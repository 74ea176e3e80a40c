import { randomBytes } from "node:crypto";
import { expect } from "chai";
import * as ecc from "tiny-secp256k1";
import { encodeArkAddress, walletArkAddress } from "@tender/ark-protocol";
import {
  BalanceContributors, SendDestinations, classifyDestination, unclaimedKindError, type SendDestination,
} from "../src/index.js";

const failure = <T>(p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e: unknown) => e as T);

function randomKey(): { sk: Uint8Array; pk: Uint8Array } {
  for (;;) {
    const sk = Uint8Array.from(randomBytes(32));
    if (ecc.isPrivate(sk)) return { sk, pk: Uint8Array.from(ecc.pointFromScalar(sk, true)!) };
  }
}

function recipientAddress(): string {
  const k = randomKey();
  return encodeArkAddress(walletArkAddress({
    network: "regtest", serverPubkey: randomKey().pk, serverMailboxPubkey: randomKey().pk, mailboxId: randomKey().pk, vtxoPubkey: k.pk, vtxoSecretKey: k.sk,
  }));
}

describe("send destination classification (barkd's order and errors)", () => {
  const classify = (d: string, amount: number | null = 1_000, comment: string | null = null) => {
    try {
      const dest = classifyDestination(d, amount, comment, "regtest");
      if (dest.kind !== "ark") throw unclaimedKindError(dest.kind); // only the Ark rail is loaded
      return dest.kind;
    } catch (e) {
      return `${(e as { status: number }).status} ${(e as Error).message}`;
    }
  };

  it("takes Ark addresses, and requires their amount (500 amount missing)", () => {
    expect(classify(recipientAddress())).to.equal("ark");
    expect(classify(recipientAddress(), null)).to.equal("500 amount missing");
  });

  it("answers barkd's errors for the destinations it cannot pay", () => {
    expect(classify("bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080")).to.equal("500 offboards are temporarily disabled");
    expect(classify("bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", null)).to.equal("500 amount missing");
    expect(classify("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4")).to.match(/^500 address .* is not valid for configured network regtest$/);
    expect(classify("satoshi@example.com", null)).to.equal("400 bad request: amount is required for Lightning addresses");
    expect(classify("lnurl1dp68gurn8ghj7um9wfmxjcm99e3k7mf0v9cxj0m385ekvcenxc6r2c35xvukxefcv5mkvv34x5ekzd3ev56nyd3hxqurzepexejxxepnxscrvwfnv9nxzcn9xq6xyefhvgcxxcmyxymnserxfq5fns", null)).to.equal("400 bad request: amount is required for LNURL");
    expect(classify("lnbc2500u1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu9qrsgquk0rl77nj30yxdy8j9vdx85fkpmdla2087ne0xh8nhedh8w27kyke0lp53ut353s06fv3qfegext0eh0ymjpf39tuven09sam30g4vgpfna3rh", null, "hi")).to.equal("400 comment is not supported for BOLT-11 invoices");
    expect(classify("hello")).to.equal("400 Argument is not a valid destination. Supported are: ark addresses, bolt11 invoices, bolt12 offers and lightning addresses");
  });

  it("takes the destination as given: surrounding whitespace makes it no destination, as in barkd", () => {
    for (const d of [` ${recipientAddress()} `, `${recipientAddress()}\n`, "\tbcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080", " satoshi@example.com"]) {
      expect(classify(d), JSON.stringify(d)).to.equal("400 Argument is not a valid destination. Supported are: ark addresses, bolt11 invoices, bolt12 offers and lightning addresses");
    }
  });

  it("refuses a very long destination at once (no quadratic base58 decoding on the event loop)", () => {
    for (const d of ["x".repeat(100_000), "1" + "a".repeat(100_000), "2".repeat(100_000)]) {
      const started = performance.now();
      expect(classify(d)).to.equal("400 Argument is not a valid destination. Supported are: ark addresses, bolt11 invoices, bolt12 offers and lightning addresses");
      expect(performance.now() - started, `${d.slice(0, 3)}… (${d.length} characters)`).to.be.below(200);
    }
  });
});

describe("send destinations (the wallet's send extension point)", () => {
  const dest = (kind: SendDestination["kind"]): SendDestination => ({ kind, value: "x", amountSat: 1n, comment: undefined, walletNetwork: "regtest" });

  it("hands a destination to the rail that claimed its kind, and answers barkd's error for an unclaimed kind", async () => {
    const send = new SendDestinations();
    const paid: string[] = [];
    send.claim("bolt11", "lightning", async (d) => { paid.push(d.kind); return { paymentHash: "ab".repeat(32) }; });
    expect(await send.pay(dest("bolt11"))).to.deep.equal({ paymentHash: "ab".repeat(32) });
    expect(paid).to.deep.equal(["bolt11"]);
    const e = await failure<Error & { status: number }>(send.pay(dest("lnurl")));
    expect([e.status, e.message]).to.deep.equal([500, "Lightning payments are not available in this daemon"]);
    const onchain = await failure<Error & { status: number }>(send.pay(dest("bitcoin-address")));
    expect([onchain.status, onchain.message]).to.deep.equal([500, "offboards are temporarily disabled"]);
    expect(send.claimant("bolt11")).to.equal("lightning");
  });

  it("refuses a second claim of one kind, naming both plugins", () => {
    const send = new SendDestinations();
    send.claim("ark", "ark", async () => ({}));
    expect(() => send.claim("ark", "other", async () => ({}))).to.throw("send destinations of kind ark are claimed by both plugin ark and plugin other");
  });
});

describe("balance contributors (the wallet's balance extension point)", () => {
  it("adds up each field's contributions, 0 for a field nobody contributes", async () => {
    const balance = new BalanceContributors();
    balance.contribute("spendable_sat", "ark", async () => 1_000n);
    balance.contribute("pending_board_sat", "boards", async () => 500n);
    balance.contribute("pending_board_sat", "other", async () => 25n);
    expect(await balance.read()).to.deep.equal({
      spendable_sat: 1_000n, pending_lightning_send_sat: 0n, claimable_lightning_receive_sat: 0n, pending_in_round_sat: 0n, pending_board_sat: 525n, pending_exit_sat: 0n,
    });
  });

  it("answers the fields in barkd's order, whichever contribution arrives first", async () => {
    const balance = new BalanceContributors();
    balance.contribute("spendable_sat", "ark", () => new Promise((r) => setTimeout(() => r(1n), 20)));
    balance.contribute("pending_exit_sat", "exits", async () => 2n);
    expect(Object.keys(await balance.read())).to.deep.equal([
      "spendable_sat", "pending_lightning_send_sat", "claimable_lightning_receive_sat", "pending_in_round_sat", "pending_board_sat", "pending_exit_sat",
    ]);
  });

  it("leaves pending_exit_sat unknown when a contributor cannot tell, and fails for a required field", async () => {
    const balance = new BalanceContributors();
    balance.contribute("pending_exit_sat", "exits", async () => undefined);
    expect((await balance.read()).pending_exit_sat).to.equal(undefined);
    balance.contribute("spendable_sat", "ark", async () => undefined);
    const e = await failure<Error>(balance.read());
    expect(e.message).to.equal("plugin ark could not tell its spendable_sat");
  });
});
