/**
 * Set-up of the server's Lightning-receive tests: a devnet node, the simulated Lightning network,
 * the server over gRPC on a file database (so it can be restarted) with a funded wallet, and an
 * in-process receiving wallet built from protocol-core pieces that talks to the gRPC port
 * ({@link GrpcArkServer}) the daemon uses.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { expect } from "chai";
import { GrpcArkServer } from "@tender/ark-grpc";
import {
  bytesEqual, compareBytes, decodeTx, decodeVtxo, reverseBytes, validateVtxo, encodeVtxo, htlcSendOutputs, lightningReceiveFee, toHex, vtxoId, type HtlcReceivePolicy, type Vtxo,
} from "@tender/ark-protocol";
import type { ArkoorCosignPart, LightningReceiveAntiDos } from "@tender/ark-protocol/server";
import { DevnetNode } from "../../src/node/devnet-node.js";
import { startArkServer, type RunningArkServer } from "../../src/ark-server/start-ark-server.js";
import type { ArkServerConfig } from "../../src/ark-server/server-config.js";
import { SimulatedLightningNetwork } from "../../src/lightning/simulated-network.js";
import { decodeBolt11 } from "../../src/lightning/bolt11-codec.js";
import { grpcApi, grpcClient } from "./grpc-api.js";
import { pubkeyPolicy, WalletKit, type ArkApi, type ArkoorPartReq, type KeyPair } from "./wallet-kit.js";

/** Blocks a wallet adds for its own unilateral claim (`vtxo_exit_margin` + `htlc_recv_claim_delta` + 2). */
const WALLET_MARGIN = 12 + 18 + 2;

/** A running server with Lightning, restartable. */
export class ReceiveFixture {
  readonly node = new DevnetNode({ seed: "ark-server-ln-receive" });
  readonly ln = new SimulatedLightningNetwork({ tipHeight: () => this.node.tipHeight(), routing: { delayMs: 5 } });
  readonly dir = mkdtempSync(join(tmpdir(), "tender-ln-receive-"));
  ark!: RunningArkServer;
  private readonly ports: GrpcArkServer[] = [];
  private main: GrpcArkServer | undefined;

  static async start(overrides: Partial<ArkServerConfig> = {}): Promise<ReceiveFixture> {
    const f = new ReceiveFixture();
    f.ark = await startArkServer({ node: f.node, profile: "test", overrides, datadir: f.dir, lightning: f.ln });
    await f.ark.server.wallet.fundFromFaucet(20_000_000n);
    f.node.mine(1);
    return f;
  }

  /** A connected gRPC port (pver 5 negotiated). */
  async port(): Promise<GrpcArkServer> {
    const p = new GrpcArkServer(grpcClient(this.ark.url));
    this.ports.push(p);
    await p.connect();
    return p;
  }

  /** A wallet kit over gRPC (survives restarts: a port is made on first use). */
  wallet(): WalletKit {
    const current = () => grpcApi((this.main ??= new GrpcArkServer(grpcClient(this.ark.url))).client);
    const api: ArkApi = {
      arkInfo: () => current().arkInfo(),
      requestBoardCosign: (r, p) => current().requestBoardCosign(r, p),
      registerBoardVtxo: (v) => current().registerBoardVtxo(v),
      requestArkoorCosign: (p) => current().requestArkoorCosign(p),
      registerVtxoTransactions: (v) => current().registerVtxoTransactions(v),
      postArkoorMessage: (b, v) => current().postArkoorMessage(b, v),
    };
    return new WalletKit(api, this.node);
  }

  async close(): Promise<void> {
    for (const p of this.ports) p.client.close();
    this.main?.client.close();
    await this.ark.stop();
    this.ln.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The kit's request parts as the port's {@link ArkoorCosignPart}. */
export function portParts(parts: readonly ArkoorPartReq[]): ArkoorCosignPart[] {
  return parts.map((p) => ({
    inputVtxoId: p.inputVtxoId,
    outputs: p.outputs.map((o) => ({ amount: o.totalAmount, policy: o.policy })),
    isolatedOutputs: p.isolatedOutputs.map((o) => ({ amount: o.totalAmount, policy: o.policy })),
    userPubNonces: p.userPubNonces,
    useCheckpoint: p.useCheckpoint,
    attestation: p.attestation,
  }));
}

/** One Lightning receive of a test wallet, following the client steps over the gRPC port. */
export class Receive {
  readonly preimage = new Uint8Array(randomBytes(32));
  readonly paymentHash = sha256(this.preimage);
  invoice = "";
  htlcs: Vtxo[] = [];
  htlcKey: KeyPair | undefined;
  minCltvDelta = 0;

  constructor(
    readonly f: ReceiveFixture,
    readonly kit: WalletKit,
    readonly port: GrpcArkServer,
    readonly amountSat: bigint,
  ) {}

  get hashHex(): string {
    return toHex(this.paymentHash);
  }

  /** `StartLightningReceive` with the wallet's mailbox; checks the invoice carries our hash and amount. */
  async start(description = "tender receive"): Promise<string> {
    const info = (await this.port.connect()).arkInfo;
    this.minCltvDelta = info.vtxoExitDelta + info.htlcExpiryDelta + WALLET_MARGIN;
    this.invoice = await this.port.startLightningReceive({ paymentHash: this.paymentHash, amountSat: this.amountSat, minCltvDelta: this.minCltvDelta, mailboxId: this.kit.mailbox.pk, description });
    const d = decodeBolt11(this.invoice);
    expect(toHex(d.paymentHash)).to.equal(this.hashHex);
    expect(d.amountMsat).to.equal(this.amountSat * 1000n);
    return this.invoice;
  }

  /** `PrepareLightningReceiveClaim` for a new key; validates the granted HTLC-recv VTXOs as a wallet does. */
  async prepare(antiDos?: LightningReceiveAntiDos): Promise<Vtxo[]> {
    this.htlcKey = this.kit.key();
    const info = (await this.port.connect()).arkInfo;
    const requested = this.f.node.tipHeight() + this.minCltvDelta;
    const res = await this.port.prepareLightningReceiveClaim({ paymentHash: this.paymentHash, userPubkey: this.htlcKey.pk, htlcRecvExpiry: requested, ...(antiDos ? { antiDos } : {}) });
    const htlcs = res.htlcVtxos.map((b) => decodeVtxo(b));
    for (const v of htlcs) {
      expect(v.policy.type).to.equal("server-htlc-receive");
      const p = v.policy as HtlcReceivePolicy;
      expect(bytesEqual(p.paymentHash, this.paymentHash)).to.equal(true);
      expect(bytesEqual(p.userPubkey, this.htlcKey.pk)).to.equal(true);
      expect(p.htlcExpiry).to.be.at.least(requested);
      expect(bytesEqual(v.serverPubkey, info.serverPubkey)).to.equal(true);
      // valid against its chain anchor: every signature of its genesis checks out
      const anchor = this.f.node.getTransaction(toHex(reverseBytes(v.anchorPoint.txid)));
      expect(anchor, "the pool issuance funding tx is on the chain").to.not.equal(undefined);
      validateVtxo(v, decodeTx(anchor!.raw));
    }
    const sum = htlcs.reduce((s, v) => s + v.amount, 0n);
    expect(sum + lightningReceiveFee(info.fees.lightningReceive, this.amountSat) >= this.amountSat).to.equal(true);
    expect(res.receive.state).to.equal("htlcs-ready");
    this.htlcs = htlcs;
    return htlcs;
  }

  private claimKey: KeyPair | undefined;

  /** Builds the claim package (HTLC-recv VTXOs sorted by id, one pubkey output each, to the same key on a retry). */
  claimPackage(): { pkg: ReturnType<WalletKit["prepareArkoor"]>["pkg"]; nonces: ReturnType<WalletKit["prepareArkoor"]>["nonces"]; parts: ArkoorCosignPart[] } {
    const sorted = [...this.htlcs].sort((a, b) => compareBytes(vtxoId(a), vtxoId(b)));
    const out = (this.claimKey ??= this.kit.key());
    const { pkg, nonces, parts } = this.kit.prepareArkoor(sorted, sorted.map((v) => ({ amount: v.amount, policy: pubkeyPolicy(out.pk) })), { requirePubkeyInputs: false, maxExitDepth: Number.MAX_SAFE_INTEGER });
    return { pkg, nonces, parts: portParts(parts) };
  }

  /** `ClaimLightningReceive` with `preimage` (ours by default); returns the claimed, registered VTXOs. */
  async claim(preimage: Uint8Array = this.preimage): Promise<Vtxo[]> {
    const { pkg, nonces, parts } = this.claimPackage();
    const resp = await this.port.claimLightningReceive({ paymentHash: this.paymentHash, preimage, parts });
    const vtxos = this.kit.finishArkoor(pkg, nonces, resp.map((r) => ({ serverPubNonces: [...r.serverPubNonces], serverPartialSigs: [...r.serverPartialSigs] })));
    await this.port.registerVtxoTransactions(vtxos.map((v) => encodeVtxo(v)));
    return vtxos;
  }

  /** The wallet's mailbox messages. */
  async mailbox() {
    return (await this.port.readMailbox({ mailboxId: this.kit.mailbox.pk, authorization: this.kit.authorization(), checkpoint: 0n })).messages;
  }
}

/** A sender of the same server paying `invoice` from `inputs` (HTLC-send package, then `InitiateLightningPayment`). */
export async function payFromArk(kit: WalletKit, port: GrpcArkServer, node: DevnetNode, inputs: Vtxo[], invoice: string, amount: bigint): Promise<Vtxo[]> {
  const d = decodeBolt11(invoice);
  const info = (await port.connect()).arkInfo;
  const key = kit.key();
  const total = inputs.reduce((s, v) => s + v.amount, 0n);
  const outputs = htlcSendOutputs({ amountSat: amount, feeSat: 0n, userPubkey: key.pk, paymentHash: d.paymentHash, htlcExpiry: node.tipHeight() + info.htlcSendExpiryDelta, change: total > amount ? [total - amount] : [] });
  const { pkg, nonces, parts } = kit.prepareArkoor(inputs, outputs);
  const resp = await port.requestLightningPayHtlcCosign(portParts(parts));
  const vtxos = kit.finishArkoor(pkg, nonces, resp.map((r) => ({ serverPubNonces: [...r.serverPubNonces], serverPartialSigs: [...r.serverPartialSigs] })));
  await port.registerVtxoTransactions(vtxos.map((v) => encodeVtxo(v)));
  const htlcs = vtxos.filter((v) => v.policy.type !== "pubkey");
  await port.initiateLightningPayment({ invoice, htlcVtxoIds: htlcs.map((v) => vtxoId(v)).sort(compareBytes), paymentAmountSat: amount, mailboxId: kit.mailbox.pk });
  return htlcs;
}

/** Polls `check` until it returns true (or fails after `ms`). */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
