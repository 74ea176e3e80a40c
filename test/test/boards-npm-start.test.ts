import { expect } from "chai";
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, cleanup, tempDatadir } from "../src/daemon-process.js";

const START_ALL = join(REPO_ROOT, "core", "tenderd", "dist", "src", "launch", "start-all.js");

const listenOnce = (port: number) => new Promise<number>((resolve, reject) => {
  const s = createServer();
  s.once("error", reject);
  s.listen(port, "127.0.0.1", () => {
    const got = (s.address() as { port: number }).port;
    s.close(() => resolve(got));
  });
});

/**
 * A free port below the system's range for outgoing connections' local ports, so no client
 * socket of another process takes it (or the one after it, Bob's) while the test runs.
 */
async function quietPort(): Promise<number> {
  let low = 32768;
  try { low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]); } catch { /* not Linux */ }
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * Math.max(1, low - 20_002));
    try {
      await listenOnce(port);
      await listenOnce(port + 1);
      return port;
    } catch { /* taken: another */ }
  }
  return listenOnce(0);
}

const refused = async (url: string) => fetch(url).then(() => false, () => true);

describe("npm start: devnet + Ark server + daemon with a working recipe (issue 3 item 5, issue 6 item 4)", function () {
  this.timeout(240_000);
  let launcher: ChildProcess | undefined;
  let bobPid: number | undefined;
  const datadir = tempDatadir("tender-start-");
  after(async () => {
    if (bobPid) {
      try { process.kill(bobPid, "SIGTERM"); } catch { /* already gone */ }
      // Bob's daemon is no child of this process: wait for it to be gone before its datadir is removed
      const alive = (): boolean => { try { process.kill(bobPid!, 0); return true; } catch { return false; } };
      for (let i = 0; i < 150 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
      if (alive()) { try { process.kill(bobPid, "SIGKILL"); } catch { /* gone meanwhile */ } }
    }
    if (launcher && launcher.exitCode === null && launcher.signalCode === null) launcher.kill("SIGKILL");
    for (const d of [datadir, `${datadir}-devnet`, `${datadir}-bob`, `${datadir}-bob.log`]) cleanup(d);
  });

  it("starts everything on loopback, prints a recipe that creates, funds, boards and pays a second daemon, and stops everything on SIGINT", async () => {
    const port = await quietPort();
    launcher = spawn(process.execPath, [START_ALL, "--datadir", datadir, "--port", String(port), "--profile", "test",
      "--esplora-port", "0", "--rpc-port", "0", "--ark-port", "0", "--ark-admin-port", "0"], { cwd: REPO_ROOT });
    let out = "";
    let err = "";
    launcher.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => launcher!.once("exit", (code) => r(code)));
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`start-all did not print its recipe:\n${out}\n${err}`)), 60_000);
      launcher!.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("# Ctrl-C")) { clearTimeout(t); resolve(); }
      });
      void exited.then((code) => reject(new Error(`start-all exited with ${code}:\n${err}`)));
    });

    const ready = JSON.parse(/^devnet ready (.*)$/m.exec(out)![1]!) as Record<string, string>;
    expect(ready.daemon).to.equal(`http://127.0.0.1:${port}`);
    for (const url of Object.values(ready)) expect(url, "loopback only").to.match(/^http:\/\/127\.0\.0\.1:\d+/);

    // Run the whole printed recipe exactly as a person would paste it: create, fund, board, then Bob's daemon and a payment to him.
    const lines = out.split("\n");
    const recipe = lines.slice(lines.findIndex((l) => l.startsWith("TOKEN=")), lines.findIndex((l) => l.startsWith("# Ctrl-C"))).join("\n");
    expect(recipe).to.contain("/boards/board-amount");
    const env = { ...process.env, PATH: `${join(process.execPath, "..")}:${process.env.PATH ?? ""}` };
    let stdout = "";
    try {
      stdout = (await promisify(execFile)("bash", ["-c", recipe], { cwd: REPO_ROOT, env, timeout: 180_000 })).stdout;
    } catch (e) {
      // Say how the recipe ended and what it and Bob's daemon printed, not only that it failed.
      const r = e as { code?: number; signal?: string; killed?: boolean; stdout?: string; stderr?: string };
      let bobLog = "";
      try { bobLog = readFileSync(`${datadir}-bob.log`, "utf8").slice(-4000); } catch { /* never started */ }
      throw new Error(`the recipe ended with code ${r.code} signal ${r.signal} (killed by the timeout: ${r.killed === true})\n` +
        `stdout:\n${r.stdout ?? ""}\nstderr:\n${r.stderr ?? ""}\nBob's log:\n${bobLog}`);
    } finally {
      // Bob's daemon was started by the recipe in the background: stop it by the pid in its lock file.
      try { bobPid = Number(readFileSync(join(`${datadir}-bob`, "tenderd.lock"), "utf8").trim()); } catch { bobPid = undefined; }
    }
    expect(stdout).to.contain('"fingerprint"');
    expect(stdout).to.match(/"funding_tx":\{"txid":"[0-9a-f]{64}"/);

    const token = readFileSync(join(datadir, "auth_token"), "utf8").trim();
    const api = async <T>(path: string, base = ready.daemon!, tok = token): Promise<T> =>
      (await (await fetch(`${base}/api/v1${path}`, { headers: { Authorization: `Bearer ${tok}` } })).json()) as T;
    const end = Date.now() + 20_000;
    let boards: { status: string }[] = [];
    while (Date.now() < end) {
      boards = (await api<{ status: string; subsystem: { name: string } }[]>("/history")).filter((m) => m.subsystem.name === "bark.board");
      if (boards[0]?.status === "successful") break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(boards.map((b) => b.status)).to.deep.equal(["successful"]);
    expect(await api<unknown[]>("/boards/pending")).to.deep.equal([]);
    // Bob received the payment through the mailbox.
    const bobToken = readFileSync(join(`${datadir}-bob`, "auth_token"), "utf8").trim();
    const bobBase = /^BOBAPI=(http:\/\/127\.0\.0\.1:\d+)\/api\/v1$/m.exec(recipe)![1]!;
    let bob = { spendable_sat: 0 };
    for (const stop = Date.now() + 20_000; Date.now() < stop && bob.spendable_sat === 0; await new Promise((r) => setTimeout(r, 200))) {
      bob = await api<{ spendable_sat: number }>("/wallet/balance", bobBase, bobToken);
    }
    expect(bob.spendable_sat).to.equal(100_000);

    launcher.kill("SIGINT");
    expect(await exited).to.equal(0);
    expect(await refused(`${ready.daemon}/ping`), "daemon stopped").to.equal(true);
    expect(await refused(`${ready.esplora}/blocks/tip/height`), "chain stopped").to.equal(true);
  });
});
