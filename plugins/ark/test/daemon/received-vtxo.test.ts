import { expect } from "chai";
import type { ChainSource, Database } from "@tender/core";
import { encodeTx, reverseBytes, toHex, txid, type Transaction, type Vtxo } from "@tender/ark-protocol";
import { ArkKeys } from "../../src/daemon/keys/ark-keys.js";
import { checkReceivedVtxo, RECEIVE_TIP_REUSE_MARGIN, RECEIVE_TIP_REUSE_MS, VtxoNotAcceptedError } from "../../src/daemon/vtxos/received-vtxo.js";
import { EXIT_DELTA, MNEMONIC, SERVER, masterOf, memoryDb, randomKey, signedBoard as board } from "./fixtures.js";

describe("received VTXO acceptance (mailbox receive and import)", () => {
  let db: Database;
  let keys: ArkKeys;
  let own: { sk: Uint8Array; pk: Uint8Array };
  const txs = new Map<string, Transaction>();
  const chain = {
    getTip: async () => ({ height: 100, hash: "00".repeat(32) }),
    getTx: async (id: string) => {
      const tx = txs.get(id);
      return tx ? { txid: id, hex: toHex(encodeTx(tx)), status: { confirmed: true } } : null;
    },
  } as unknown as ChainSource;
  const check = (vtxo: Vtxo, importing = false) =>
    checkReceivedVtxo(vtxo, { chain, keys, serverPubkey: SERVER.pk, exitDelta: EXIT_DELTA, importing }).then(() => "accepted", (e: unknown) => {
      expect(e).to.be.instanceOf(VtxoNotAcceptedError);
      return (e as Error).message;
    });
  const published = (b: { vtxo: Vtxo; funding: Transaction }) => {
    txs.set(toHex(reverseBytes(txid(b.funding))), b.funding);
    return b.vtxo;
  };

  beforeEach(async () => {
    db = await memoryDb();
    keys = await ArkKeys.load(db, masterOf(MNEMONIC));
    const k = await keys.nextVtxoKey();
    own = { sk: k.secretKey, pk: k.publicKey };
  });
  afterEach(() => db.close());

  it("accepts a fully signed VTXO on the wallet's key, anchored on chain, expiring after tip + exit delta", async () => {
    expect(await check(published(board(own, 10_000n, 500)))).to.equal("accepted");
  });

  it("refuses a VTXO whose anchor is not on chain, one with a missing signature, and one expiring too soon (receive: within the exit delta; import: at the tip)", async () => {
    expect(await check(board(own, 10_000n, 500).vtxo)).to.match(/chain anchor [0-9a-f]{64} not found on chain/);
    expect(await check(published(board(own, 10_000n, 500, false)))).to.match(/^invalid VTXO: .*missing signature/);
    const soon = published(board(own, 10_000n, 100 + EXIT_DELTA));
    expect(await check(soon)).to.match(/too close to the tip/);
    expect(await check(soon, true)).to.equal("accepted"); // an import only has to outlive the tip
    expect(await check(published(board(own, 10_000n, 100)), true)).to.match(/^Vtxo [0-9a-f]{64}:0 has expired$/);
  });

  it("refuses a VTXO of another key or another server, and finds a not yet handed-out key of the seed only when importing", async () => {
    expect(await check(published(board(randomKey(), 10_000n, 500)))).to.match(/^VTXO [0-9a-f]{64}:0 is not owned by this wallet \(no signable clause found\)$/);
    const other = published(board(own, 10_000n, 500));
    const foreignServer = { ...other, serverPubkey: randomKey().pk };
    expect(await check(foreignServer)).to.equal("VTXO belongs to a different Ark server");
    const k5 = keys.deriveVtxoKey(5);
    const later = published(board({ sk: k5.secretKey, pk: k5.publicKey }, 10_000n, 500));
    expect(await check(later)).to.match(/not owned by this wallet/);
    expect(await check(later, true)).to.equal("accepted");
  });

  it("a receive reuses a tip read within the last second for a VTXO far from its bound, and reads it afresh near the bound or later; an import always reads it", async () => {
    let height = 100;
    let reads = 0;
    const moving = {
      getTip: async () => {
        reads++;
        return { height, hash: "00".repeat(32) };
      },
      getTx: chain.getTx,
    } as unknown as ChainSource;
    const checkOn = (vtxo: Vtxo, importing = false) =>
      checkReceivedVtxo(vtxo, { chain: moving, keys, serverPubkey: SERVER.pk, exitDelta: EXIT_DELTA, importing }).then(() => "accepted", (e: Error) => e.message);
    const far = published(board(own, 10_000n, 500));
    expect(await checkOn(far)).to.equal("accepted");
    expect(await checkOn(far)).to.equal("accepted");
    expect(reads).to.equal(1);
    // a block found meanwhile: a VTXO just past the bound of the kept tip is checked on a fresh one
    height = 101;
    const edge = published(board(own, 10_000n, 100 + EXIT_DELTA + RECEIVE_TIP_REUSE_MARGIN));
    expect(await checkOn(edge)).to.equal("accepted");
    expect(reads).to.equal(2);
    height = 100 + RECEIVE_TIP_REUSE_MARGIN;
    expect(await checkOn(edge)).to.match(/too close to the tip/);
    expect(reads).to.equal(3);
    expect(await checkOn(far, true)).to.equal("accepted");
    expect(reads).to.equal(4);
    // a kept tip is read again once it is older than the reuse time
    expect(await checkOn(far)).to.equal("accepted");
    expect(reads).to.equal(4);
    await new Promise((r) => setTimeout(r, RECEIVE_TIP_REUSE_MS + 20));
    expect(await checkOn(far)).to.equal("accepted");
    expect(reads).to.equal(5);
  });
});
