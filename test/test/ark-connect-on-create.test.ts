import { expect } from "chai";
import { cleanup, startDaemon, type Daemon } from "../src/daemon-process.js";
import { regtestWallet, sharedDevnet } from "../src/shared-devnet.js";

/**
 * barkd connects to the Ark server while it creates or opens a wallet, so a client may ask for
 * the server's info the moment `POST /wallet/create` answered, or the moment a restarted daemon
 * listens. Each call below comes right after the previous answer: no wait, no retry. Several
 * fresh datadirs, so a race between the answer and the connection would show.
 */
describe("the Ark server session is established before a wallet is ready (create, restart)", function () {
  // five daemon starts per case: under CI's load one start, create and stop took 20 s
  this.timeout(300_000);
  const ROUNDS = 4;
  const started: Daemon[] = [];
  const start = async (datadir?: string): Promise<Daemon> => {
    const d = await startDaemon(datadir ? { datadir } : {});
    started.push(d);
    return d;
  };
  const arkInfoAtOnce = async (d: Daemon, when: string): Promise<void> => {
    const info = await d.api("GET", "/api/v1/wallet/ark-info");
    expect(info.status, `${when}: ${info.text}`).to.equal(200);
    const { server_pubkey, network } = info.json as { server_pubkey: string; network: string };
    expect(network).to.equal("regtest");
    expect(server_pubkey).to.match(/^0[23][0-9a-f]{64}$/);
    expect(await (await d.api("GET", "/api/v1/wallet/connected")).json).to.deep.equal({ connected: true });
  };

  before(async () => {
    await sharedDevnet();
  });
  after(async () => {
    for (const d of started) {
      await d.stop();
      cleanup(d.datadir);
    }
  });

  it("answers GET ark-info with 200 right after POST wallet/create", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const d = await start();
      const created = await d.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
      expect(created.status, created.text).to.equal(200);
      await arkInfoAtOnce(d, `round ${round}, right after create`);
      await d.stop();
    }
  });

  it("answers GET ark-info with 200 as soon as a daemon restarted with a wallet listens", async () => {
    const first = await start();
    const created = await first.api("POST", "/api/v1/wallet/create", { body: await regtestWallet() });
    expect(created.status, created.text).to.equal(200);
    await first.stop();
    for (let round = 0; round < ROUNDS; round++) {
      const d = await start(first.datadir);
      await arkInfoAtOnce(d, `restart ${round}`);
      await d.stop();
    }
  });
});
