/** Set-up of the server's Lightning-send tests: a node, the simulated network, a server paying through it, and HTLC packages built by a test wallet. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  encodeVtxo, fromHex, htlcSendOutputs, revocationOutputs, vtxoId, type Vtxo,
} from "@tender/ark-protocol";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { ArkServer } from "../../src/ark-server/ark-server.js";
import { SimulatedLightningNetwork } from "../../src/lightning/simulated-network.js";
import type { ArkServerConfig } from "../../src/ark-server/server-config.js";
import { domainApi } from "./fixture.js";
import { WalletKit, type KeyPair } from "./wallet-kit.js";

/** pver the tests speak (Lightning needs 5). */
export const PVER = 5;

/** A server with Lightning, on a file database so it can be reopened. */
export class LightningFixture {
  server!: ArkServer;
  readonly node = new DevnetNode({ seed: "ark-server-lightning" });
  readonly ln = new SimulatedLightningNetwork({ tipHeight: () => this.node.tipHeight(), routing: { delayMs: 5 } });
  readonly dir = mkdtempSync(join(tmpdir(), "tender-ln-server-"));

  static async open(overrides: Partial<ArkServerConfig> = {}): Promise<LightningFixture> {
    const f = new LightningFixture();
    f.overrides = overrides;
    await f.reopen();
    return f;
  }

  private overrides: Partial<ArkServerConfig> = {};

  /** (Re)opens the server on the same database and Lightning network. */
  async reopen(): Promise<void> {
    this.server = await ArkServer.open({ chain: this.node, profile: "test", overrides: this.overrides, datadir: this.dir, lightning: this.ln });
  }

  wallet(): WalletKit {
    return new WalletKit(domainApi(this.server), this.node);
  }

  async close(): Promise<void> {
    await this.server.close();
    this.ln.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** An HTLC send built and cosigned by a test wallet. */
export interface HtlcSend {
  htlcKey: KeyPair;
  htlcs: Vtxo[];
  change: Vtxo[];
}

/** Builds the HTLC package over `inputs` (HTLC of amount + fee, change back to the HTLC key), gets it cosigned and registers every output. */
export async function cosignHtlcs(
  f: LightningFixture, kit: WalletKit, inputs: Vtxo[], paymentHash: Uint8Array, amount: bigint,
  opts: { fee?: bigint; expiry?: number; changePieces?: number; register?: boolean } = {},
): Promise<HtlcSend> {
  const fee = opts.fee ?? 0n;
  const htlcKey = kit.key();
  const total = inputs.reduce((s, v) => s + v.amount, 0n);
  const changeTotal = total - amount - fee;
  const n = BigInt(opts.changePieces ?? 1);
  const change = changeTotal > 0n ? Array.from({ length: Number(n) }, (_, i) => (i === Number(n) - 1 ? changeTotal - (changeTotal / n) * (n - 1n) : changeTotal / n)) : [];
  const expiry = opts.expiry ?? f.node.tipHeight() + f.server.config.htlcSendExpiryDelta;
  const outputs = htlcSendOutputs({ amountSat: amount, feeSat: fee, userPubkey: htlcKey.pk, paymentHash, htlcExpiry: expiry, change });
  const { pkg, nonces, parts } = kit.prepareArkoor(inputs, outputs);
  const vtxos = kit.finishArkoor(pkg, nonces, await f.server.lightningSend.requestHtlcCosign(parts, PVER));
  if (opts.register ?? true) await f.server.registerVtxoTransactions(vtxos.map((v) => encodeVtxo(v)));
  const isHtlc = (v: Vtxo) => v.policy.type === "server-htlc-send-v1";
  return { htlcKey, htlcs: vtxos.filter(isHtlc), change: vtxos.filter((v) => !isHtlc(v)) };
}

/** `InitiateLightningPayment` for these HTLCs, with the wallet's mailbox. */
export function initiate(f: LightningFixture, kit: WalletKit, invoice: string, htlcs: Vtxo[], amount: bigint): Promise<void> {
  const ids = htlcs.map((v) => vtxoId(v)).sort((a, b) => Buffer.compare(a, b));
  return f.server.lightningSend.initiate({ invoice, htlcVtxoIds: ids, paymentAmountSat: amount, mailboxId: kit.mailbox.pk }, PVER);
}

/** Builds, cosigns and registers the revocation of `htlcs` to a new key of the wallet. */
export async function revoke(f: LightningFixture, kit: WalletKit, htlcs: Vtxo[]): Promise<Vtxo[]> {
  const back = kit.key();
  const { pkg, nonces, parts } = kit.prepareArkoor(htlcs, revocationOutputs(htlcs, back.pk), { requirePubkeyInputs: false });
  const vtxos = kit.finishArkoor(pkg, nonces, await f.server.lightningSend.requestRevocation(parts, PVER));
  await f.server.registerVtxoTransactions(vtxos.map((v) => encodeVtxo(v)));
  return vtxos;
}

/** The hash of a simulated invoice as bytes. */
export const hashOf = (inv: { paymentHash: string }) => fromHex(inv.paymentHash);
