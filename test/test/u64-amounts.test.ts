/**
 * Amounts are u64 in barkd: an `amount_sat` beyond 2^53 is a valid amount that the handler refuses
 * with its own JSON error (insufficient funds), never rounded and never a text/plain 422 from the
 * schema layer; only values beyond u64 are schema rejections.
 */
import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { BOARD_DAEMON_CONFIG, fundedWallet, ok, startBoardDevnet, type DevnetWithArk } from "./boards-harness.js";

const OVER_2_53 = "9007199254740993"; // 2^53 + 1: a double would round it to 2^53
const U64_MAX = "18446744073709551615";
const OVER_U64 = "18446744073709551616";

describe("u64 amounts in request bodies", function () {
  this.timeout(90_000);
  let devnet: DevnetWithArk;
  let d: Daemon;

  before(async () => {
    devnet = await startBoardDevnet("u64-amounts");
    d = await startDaemon({ config: BOARD_DAEMON_CONFIG });
    await fundedWallet(d, devnet, [100_000n]);
  });
  after(async () => {
    await d.stop();
    cleanup(d.datadir);
    await devnet.stop();
  });

  const post = (path: string, json: string) => d.api("POST", path, { body: json });

  it("hands amounts beyond 2^53 to the handlers, which refuse them with their JSON errors", async () => {
    const { address: ark } = await ok<{ address: string }>(d, "POST", "/api/v1/wallet/addresses/next");
    for (const amount of [OVER_2_53, U64_MAX]) {
      const send = await post("/api/v1/wallet/send", `{"destination":"${ark}","amount_sat":${amount}}`);
      expect(send.status, `send ${amount}: ${send.text}`).to.equal(500);
      expect((send.json as { message: string }).message, amount).to.match(/Insufficient money available/);
      const onchain = await post("/api/v1/onchain/send", `{"destination":"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080","amount_sat":${amount}}`);
      expect(onchain.status, `onchain ${amount}: ${onchain.text}`).to.equal(400);
      // Above 21 M BTC the on-chain wallet refuses the amount itself, as send-many does.
      expect((onchain.json as { message: string }).message, amount).to.match(/^bad request: invalid amount/);
      const board = await post("/api/v1/boards/board-amount", `{"amount_sat":${amount}}`);
      expect(board.status, `board ${amount}: ${board.text}`).to.equal(500);
      expect(board.headers.get("content-type"), amount).to.match(/^application\/json/);
    }
  });

  it("still refuses a value beyond u64 with the framework's plain-text 422", async () => {
    const r = await post("/api/v1/onchain/send", `{"destination":"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080","amount_sat":${OVER_U64}}`);
    expect(r.status).to.equal(422);
    expect(r.headers.get("content-type")).to.match(/^text\/plain/);
  });

  it("keeps every refused request from changing anything", async () => {
    expect((await ok<{ total_sat: number }>(d, "GET", "/api/v1/onchain/balance")).total_sat).to.equal(100_000);
    expect(await ok(d, "GET", "/api/v1/boards/pending")).to.deep.equal([]);
    expect(await ok(d, "GET", "/api/v1/history")).to.deep.equal([]);
  });
});
