import { expect } from "chai";
import { ArkServerClient, ArkServerNotFoundError, ArkServerUnavailableError, type RoundEvent } from "@tender/ark-grpc";
import { encodeVtxo, formatOutPoint, toHex, vtxoId } from "@tender/ark-protocol";
import { arkReadyFields, type DevnetWithArk } from "../../src/ark-server/devnet-with-ark.js";
import { DevnetUnderTest, controlCall, okBody, type ControlAnswer } from "./devnet-under-test.js";
import { grpcApi } from "./grpc-api.js";
import { rejection } from "./fixture.js";
import { pubkeyPolicy, WalletKit } from "./wallet-kit.js";

describe("devnet controls of the Ark server (/devnet/ark over HTTP)", function () {
  this.timeout(60_000);
  let t: DevnetUnderTest;
  let devnet: DevnetWithArk;

  const control = (method: "GET" | "POST", path: string, body?: unknown): Promise<ControlAnswer> => controlCall(`${devnet.arkControlUrl}${path}`, method, body);
  const ok = async <T = Record<string, unknown>>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> => okBody<T>(await control(method, path, body));
  const client = (): ArkServerClient => t.client(devnet.arkUrl);
  const wallet = (c: ArkServerClient = client()) => new WalletKit(grpcApi(c), devnet.node);

  beforeEach(async () => {
    t = await DevnetUnderTest.start("ark-controls");
    devnet = t.devnet;
  });
  afterEach(() => t.stop());

  it("are listed in the devnet ready fields and report the server's URLs and keys", async () => {
    expect(devnet.arkControlUrl).to.equal(`${devnet.controlUrl}/ark`);
    expect(arkReadyFields(devnet).ark_control).to.equal(devnet.arkControlUrl);
    const info = await client().ark("getArkInfo", {});
    expect(await ok("GET", "/status")).to.deep.equal({
      running: true, url: devnet.arkUrl, admin_url: devnet.arkAdminUrl, server_pubkey: toHex(info.serverPubkey), mailbox_pubkey: toHex(info.mailboxPubkey),
    });
  });

  it("stop makes gRPC calls fail as unavailable; start serves again on the same ports with the same keys, VTXOs and settings", async () => {
    const before = client();
    const keys = (await before.ark("getArkInfo", {})).serverPubkey;
    const alice = wallet(before);
    const board = await alice.board(50_000n);
    await ok("POST", "/settings", { round_interval_secs: 77 });

    const stopped = await ok("POST", "/stop");
    expect(stopped.running).to.equal(false);
    expect((await ok("GET", "/status")).running).to.equal(false);
    const down = await client().ark("getVtxo", { vtxoId: vtxoId(board) }).then(() => null, (e: unknown) => e);
    expect(down).to.be.instanceOf(ArkServerUnavailableError);
    const again = await control("POST", "/stop");
    expect(again).to.deep.equal({ status: 409, body: "the Ark server is already stopped" });
    const ban = await control("POST", "/ban", { vtxo: formatOutPoint(board.point) });
    expect(ban.status).to.equal(409);
    expect(ban.body).to.match(/^the Ark server is stopped/);

    const started = await ok("POST", "/start");
    expect(started).to.include({ running: true, url: devnet.arkUrl, admin_url: devnet.arkAdminUrl, server_pubkey: toHex(keys) });
    expect(devnet.ark.url).to.equal(devnet.arkUrl);
    expect((await control("POST", "/start")).status).to.equal(409);
    const after = client();
    const info = await after.ark("getArkInfo", {});
    expect(info.serverPubkey).to.deep.equal(keys);
    expect(info.roundIntervalSecs).to.equal(77);
    // the board registered before the stop is still known, and the client from before reconnects
    expect((await after.ark("getVtxo", { vtxoId: vtxoId(board) })).vtxo).to.deep.equal(encodeVtxo(board));
    expect((await before.ark("getVtxo", { vtxoId: vtxoId(board) })).vtxo).to.deep.equal(encodeVtxo(board));
    // and it can still be spent
    const { sent } = await alice.send([board], 20_000n, wallet(after).key().pk);
    expect(sent.map((v) => v.amount)).to.deep.equal([20_000n]);
  });

  it("trigger-round starts a round at once (the interval is an hour): its attempt, then its failure once the new sign-up window passes with nobody in it", async () => {
    const c = client();
    expect(await rejection(c.ark("lastRoundEvent", {}))).to.be.instanceOf(ArkServerNotFoundError);
    await ok("POST", "/settings", { round_submit_time_ms: 1_500 });
    const events: RoundEvent[] = [];
    const sub = c.subscribeRounds({ onEvent: async (e) => void events.push(e) });
    try {
      while (sub.subscriptions === 0) await new Promise((r) => setTimeout(r, 20));
      const asked = Date.now();
      expect(await ok("POST", "/trigger-round")).to.deep.equal({ triggered: true });
      while (events.length < 2 && Date.now() - asked < 10_000) await new Promise((r) => setTimeout(r, 20));
      const [attempt, failed] = events;
      expect(attempt?.event?.$case).to.equal("attempt");
      expect(failed?.event).to.deep.equal({ $case: "failed", value: { roundSeq: attempt!.event!.value.roundSeq } });
      expect(Date.now() - asked).to.be.below(5_000); // the 1.5 s window, not the profile's 5 s
      expect(await c.ark("lastRoundEvent", {})).to.deep.equal(failed);
    } finally {
      await sub.stop();
    }
    await ok("POST", "/stop");
    const stopped = await control("POST", "/trigger-round");
    expect(stopped.status).to.equal(409);
    expect(stopped.body).to.equal("the Ark server is stopped: start it (POST /devnet/ark/start) to trigger a round");
  });

  it("ban refuses the VTXO's arkoor cosign until unban; the bans list shows it meanwhile", async () => {
    const alice = wallet();
    const coin = await alice.board(40_000n);
    const id = formatOutPoint(coin.point);
    const tip = devnet.node.tipHeight();
    expect(await ok("POST", "/ban", { vtxo: id, blocks: 10 })).to.deep.equal({ vtxo: id, banned_until_height: tip + 10 });
    expect(await ok("GET", "/bans")).to.deep.equal([{ vtxo: id, banned_until_height: tip + 10 }]);
    const { parts } = alice.prepareArkoor([coin], [{ amount: 40_000n, policy: pubkeyPolicy(wallet().key().pk) }]);
    const refused = await alice.api.requestArkoorCosign(parts).then(() => null, (e: Error) => e);
    expect(refused?.message).to.contain(`vtxo ${id} is banned until block ${tip + 10}`);

    expect(await ok("POST", "/unban", { vtxo: id })).to.deep.equal({ vtxo: id });
    expect(await ok("GET", "/bans")).to.deep.equal([]);
    expect(await alice.api.requestArkoorCosign(parts)).to.have.length(1);
  });

  it("a ban without blocks lasts 144 blocks", async () => {
    const coin = await wallet().board(30_000n);
    const answer = await ok<{ banned_until_height: number }>("POST", "/ban", { vtxo: formatOutPoint(coin.point) });
    expect(answer.banned_until_height).to.equal(devnet.node.tipHeight() + 144);
  });

  it("refuses bad ban and unban requests (400), unknown VTXOs (404), and changes nothing", async () => {
    const coin = await wallet().board(30_000n);
    const id = formatOutPoint(coin.point);
    const unknown = `${"ab".repeat(32)}:0`;
    const cases: [string, unknown, number, RegExp][] = [
      ["/ban", {}, 400, /^vtxo is required/],
      ["/ban", { vtxo: 7 }, 400, /^vtxo is required/],
      ["/ban", { vtxo: "not-an-id" }, 400, /^vtxo must be a VTXO id <txid>:<vout>/],
      ["/ban", { vtxo: id, blocks: 0 }, 400, /^blocks must be an integer/],
      ["/ban", { vtxo: id, blocks: 1.5 }, 400, /^blocks must be an integer/],
      ["/ban", { vtxo: id, blocks: "5" }, 400, /^blocks must be an integer/],
      ["/ban", [id], 400, /^the request body must be a JSON object/],
      ["/ban", "{not json", 400, /^Invalid request body/],
      ["/ban", { vtxo: unknown }, 404, /^not found: vtxo not found/],
      ["/unban", { vtxo: "x:1" }, 400, /^vtxo must be a VTXO id/],
      ["/unban", { vtxo: unknown }, 404, /^not found: vtxo not found/],
    ];
    for (const [path, body, status, text] of cases) {
      const a = await control("POST", path, body);
      expect(a.status, `${path} ${JSON.stringify(body)}`).to.equal(status);
      expect(a.body, `${path} ${JSON.stringify(body)}`).to.match(text);
    }
    expect(await ok("GET", "/bans")).to.deep.equal([]);
  });

  it("settings: GetArkInfo announces changed fees and round interval, ReadMailbox pages by the new size, the handshake carries the PSA", async () => {
    const initial = await ok("GET", "/settings");
    expect(initial).to.deep.include({ max_read_mailbox_items: 100, round_interval_secs: 3600, round_submit_time_ms: 5_000, round_sign_time_ms: 5_000, handshake_psa: null, required_board_confirmations: 1 });
    const changed = await ok("POST", "/settings", {
      max_read_mailbox_items: 1,
      round_interval_secs: 30,
      handshake_psa: "devnet maintenance at noon",
      max_vtxo_exit_depth: 7,
      fees: { board: { ppm: 2_000 }, refresh: { base_fee_sat: 150, ppm_expiry_table: [{ expiry_blocks_threshold: 0, ppm: 100 }, { expiry_blocks_threshold: 50, ppm: 400 }] } },
    });
    expect(changed).to.deep.include({ max_read_mailbox_items: 1, round_interval_secs: 30, handshake_psa: "devnet maintenance at noon", max_vtxo_exit_depth: 7 });
    expect(await ok("GET", "/settings")).to.deep.equal(changed);

    const c = client();
    const info = await c.ark("getArkInfo", {});
    expect(info.roundIntervalSecs).to.equal(30);
    expect(info.maxVtxoExitDepth).to.equal(7);
    expect(info.fees?.board).to.deep.equal({ minFeeSat: 0n, baseFeeSat: 0n, ppm: 2_000n });
    expect(info.fees?.refresh).to.deep.equal({ baseFeeSat: 150n, ppmExpiryTable: [{ expiryBlocksThreshold: 0, ppm: 100n }, { expiryBlocksThreshold: 50, ppm: 400n }] });
    expect(info.fees?.offboard?.fixedAdditionalVb).to.equal(100n); // parts not named keep their values
    // the next round is one new interval after the last round start (at most 30 s away, where it was an hour)
    const next = Number((await c.ark("nextRoundTime", {})).timestamp);
    const now = Math.floor(Date.now() / 1000);
    expect(next).to.be.within(now + 15, now + 30);
    expect((await c.connect()).psa).to.contain("devnet maintenance at noon");

    // two payments to bob's mailbox are read one per page
    const alice = wallet(c);
    const bob = wallet(c);
    let coin = await alice.board(60_000n);
    for (let i = 0; i < 2; i++) {
      const key = bob.key();
      const { sent, change } = await alice.send([coin], 10_000n, key.pk);
      coin = change[0]!;
      await c.mailbox("postArkoorMessage", { blindedId: await bob.blindedMailboxId(key), vtxos: sent.map((v) => encodeVtxo(v)) });
    }
    const first = await c.mailbox("readMailbox", { mailboxId: bob.mailbox.pk, authorization: bob.authorization(), checkpoint: 0n });
    expect(first.messages).to.have.length(1);
    expect(first.haveMore).to.equal(true);
    await ok("POST", "/settings", { max_read_mailbox_items: 100 });
    const all = await c.mailbox("readMailbox", { mailboxId: bob.mailbox.pk, authorization: bob.authorization(), checkpoint: 0n });
    expect(all.messages).to.have.length(2);
    expect(all.haveMore).to.equal(false);
  });

  it("settings: the board fee announced is the fee the server charges", async () => {
    await ok("POST", "/settings", { fees: { board: { base_fee_sat: 500 } } });
    const alice = wallet();
    const board = await alice.board(40_000n);
    // the kit builds the exit with the announced fee; the server's cosignature only verifies if it charged the same
    expect(board.amount).to.equal(39_500n);
  });

  it("settings: bad changes are refused with 400 and leave every setting as it was", async () => {
    const before = await ok("GET", "/settings");
    const cases: [unknown, RegExp][] = [
      [{}, /^give at least one setting/],
      [[1], /^the request body must be a JSON object/],
      [{ max_read_mailbox_items: 0 }, /^max_read_mailbox_items must be an integer in 1\.\.100000/],
      [{ max_read_mailbox_items: "5" }, /^max_read_mailbox_items must be an integer/],
      [{ round_interval_secs: -1 }, /^round_interval_secs must be an integer/],
      [{ round_interval_secs: 30, vtxo_lifetime: 10 }, /^unknown field settings\.vtxo_lifetime/],
      [{ round_interval_secs: 30, fees: { board: { ppm: -1 } } }, /^fees\.board\.ppm must be an integer/],
      [{ fees: { boards: {} } }, /^unknown field fees\.boards/],
      [{ fees: { board: { fee: 1 } } }, /^unknown field fees\.board\.fee/],
      [{ fees: { refresh: { ppm_expiry_table: [{ expiry_blocks_threshold: 10, ppm: 500 }, { expiry_blocks_threshold: 20, ppm: 100 }] } } }, /^invalid fee schedule: table must be sorted by threshold with a non-decreasing ppm/],
      [{ fees: { refresh: { ppm_expiry_table: {} } } }, /^fees\.refresh\.ppm_expiry_table must be an array/],
      [{ handshake_psa: 5 }, /^handshake_psa must be a string/],
      [{ max_vtxo_amount: 1.5 }, /^max_vtxo_amount must be an integer/],
      [{ required_board_confirmations: 0 }, /^required_board_confirmations must be an integer in 1\.\./],
      [{ max_vtxo_exit_depth: 0 }, /^max_vtxo_exit_depth must be an integer in 1\.\.65535/],
      [{ round_submit_time_ms: 0 }, /^round_submit_time_ms must be an integer in 1\.\.3600000/],
      [{ round_sign_time_ms: 2.5 }, /^round_sign_time_ms must be an integer/],
    ];
    for (const [body, text] of cases) {
      const a = await control("POST", "/settings", body);
      expect(a.status, JSON.stringify(body)).to.equal(400);
      expect(a.body, JSON.stringify(body)).to.match(text);
    }
    expect(await ok("GET", "/settings")).to.deep.equal(before);
    expect((await client().ark("getArkInfo", {})).roundIntervalSecs).to.equal(3600);
  });

  it("settings change while the server is stopped and take effect when it starts", async () => {
    await ok("POST", "/stop");
    await ok("POST", "/settings", { round_interval_secs: 5, max_vtxo_amount: 1_000_000 });
    await ok("POST", "/start");
    const info = await client().ark("getArkInfo", {});
    expect(info.roundIntervalSecs).to.equal(5);
    expect(info.maxVtxoAmount).to.equal(1_000_000n);
  });
});
