import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ArkServerClient, ArkServerRejectedError } from "@tender/ark-grpc";
import {
  boardFee,
  boardFundingTaproot,
  boardVtxo,
  buildBoardExit,
  encodeOutPoint,
  encodeVtxo,
  fromHex,
  musigCompleteCosign,
  musigNonceGen,
  musigTweakedKey,
  p2trAddress,
  reverseBytes,
  signAttestation,
  toHex,
  vtxoStatusAttestation,
} from "@tender/ark-protocol";
import { grpcApi, grpcClient, kitArkInfo } from "./grpc-api.js";
import { pubkeyPolicy, WalletKit } from "./wallet-kit.js";

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "bin", "devnet.js");

interface Ready {
  control: string;
  esplora: string;
  ark: string;
}

/** Starts the devnet + Ark server as its own process on `datadir`; resolves with its ready line. */
function spawnDevnet(datadir: string): Promise<{ child: ChildProcess; ready: Ready }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "--datadir", datadir, "--profile", "test", "--seed", "kill9"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`devnet did not start: ${err}`)), 20_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /devnet ready (\{.*\})/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, ready: JSON.parse(m[1]!) as Ready });
      }
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => reject(new Error(`devnet exited with ${code}: ${err}`)));
  });
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

describe("ark server: SIGKILL of the server process between RPCs loses nothing", function () {
  this.timeout(90_000);
  let dir: string;
  let proc: { child: ChildProcess; ready: Ready } | undefined;
  let client: ArkServerClient | undefined;

  async function restart(): Promise<ArkServerClient> {
    client?.close();
    if (proc) {
      const exited = new Promise((r) => proc!.child.once("exit", r));
      proc.child.kill("SIGKILL");
      await exited;
    }
    proc = await spawnDevnet(dir);
    client = grpcClient(proc.ready.ark);
    return client;
  }

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "tender-ark-kill9-"));
  });
  after(async () => {
    client?.close();
    if (proc && proc.child.exitCode === null) {
      const exited = new Promise((r) => proc!.child.once("exit", r));
      proc.child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("completes a board and an arkoor payment with kill -9 between cosign and registration", async () => {
    let c = await restart();
    const wallet = new WalletKit(grpcApi(c), undefined as never);
    const info = kitArkInfo(await c.arkInfo());
    const serverPubkey = info.serverPubkey;
    const tip = Number(await (await fetch(`${proc!.ready.esplora}/blocks/tip/height`)).text());

    // board: funding output from the faucet, cosign, SIGKILL, confirm, register (the in-process
    // restart test covers a restart before every RPC; each process start costs seconds here)
    const key = wallet.key();
    const expiryHeight = tip + info.vtxoLifetime;
    const taproot = boardFundingTaproot({ userPubkey: key.pk, serverPubkey, expiryHeight });
    const { txid } = (await post(`${proc!.ready.control}/faucet`, { address: p2trAddress(taproot.outputKey, "regtest"), amount_sat: 50_000 })) as { txid: string };
    const txJson = (await (await fetch(`${proc!.ready.esplora}/tx/${txid}`)).json()) as { vout: { scriptpubkey: string }[] };
    const fundingRaw = fromHex(await (await fetch(`${proc!.ready.esplora}/tx/${txid}/hex`)).text());
    const vout = txJson.vout.findIndex((o) => o.scriptpubkey === toHex(taproot.scriptPubKey));
    const outpoint = { txid: reverseBytes(fromHex(txid)), vout };
    const exit = buildBoardExit({ userPubkey: key.pk, serverPubkey, expiryHeight, exitDelta: info.vtxoExitDelta }, outpoint, 50_000n, boardFee(info.fees.board, 50_000n));
    const nonce = musigNonceGen({ pubkey: key.pk, secretKey: key.sk, aggregateKey: musigTweakedKey([key.pk, serverPubkey], exit.tweak), message: exit.sighash });
    const resp = await c.ark("requestBoardCosign", { amount: 50_000n, utxo: encodeOutPoint(outpoint), expiryHeight, userPubkey: key.pk, pubNonce: nonce.pubNonce, fundingTx: fundingRaw });
    const board = boardVtxo(exit, musigCompleteCosign({ secretKey: key.sk, pubkey: key.pk, nonce, otherPubkey: serverPubkey, response: resp, message: exit.sighash, tweak: exit.tweak }));
    c = await restart();
    expect((await c.arkInfo()).serverPubkey).to.deep.equal(serverPubkey);
    await post(`${proc!.ready.control}/mine`, { blocks: 1 });
    await c.ark("registerBoardVtxo", { boardVtxo: encodeVtxo(board) });

    // arkoor: cosign, SIGKILL, replay (identical answer), register, state checks
    const pay = wallet.prepareArkoor([board], [{ amount: 50_000n, policy: pubkeyPolicy(wallet.key().pk) }]);
    const first = (await c.ark("requestArkoorCosign", { parts: pay.parts })).parts;
    c = await restart();
    const again = (await c.ark("requestArkoorCosign", { parts: pay.parts })).parts;
    expect(again).to.deep.equal(first);
    const outs = wallet.finishArkoor(pay.pkg, pay.nonces, again);
    await c.ark("registerVtxoTransactions", { vtxos: outs.map((v) => encodeVtxo(v)) });
    const id = encodeOutPoint(board.point);
    const spent = await c.ark("getVtxoStatus", { vtxoId: id, attestation: signAttestation(vtxoStatusAttestation(id), key.sk) });
    expect(spent.spendState).to.equal(2);
    const outId = encodeOutPoint(outs[0]!.point);
    const spendable = await c.ark("getVtxoStatus", { vtxoId: outId, attestation: signAttestation(vtxoStatusAttestation(outId), wallet.secretFor(outs[0]!.policy.userPubkey)) });
    expect(spendable.spendState).to.equal(1);
    const conflict = wallet.prepareArkoor([board], [{ amount: 50_000n, policy: pubkeyPolicy(wallet.key().pk) }]);
    const err = await c.ark("requestArkoorCosign", { parts: conflict.parts }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).to.be.instanceOf(ArkServerRejectedError);
    expect((err as ArkServerRejectedError).serverMessage).to.match(/is not spendable \(state: spent\)$/);
  });
});
