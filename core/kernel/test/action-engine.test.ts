import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ActionEngine, Database, silentLogger, type ActionDefinition } from "../src/index.js";
import { ActionRecord, actionMigration } from "../src/actions/action-record.js";

interface PayState { amount: number; txid?: string; broadcasts: number }

describe("action engine (crash-safe multi-step actions)", () => {
  const dir = mkdtempSync(join(tmpdir(), "tender-actions-"));
  const location = { dialect: "sqlite" as const, path: join(dir, "db.sqlite") };
  after(() => rmSync(dir, { recursive: true, force: true }));

  const open = async () => {
    const db = new Database({ entities: [ActionRecord], migrations: [actionMigration] }, silentLogger);
    await db.open(location);
    return db;
  };

  /** sign → broadcast → confirm, where `crashIn` throws inside a step like a crash would stop it. */
  function payDefinition(log: string[], crashIn?: string, ended?: string[]): ActionDefinition<PayState> {
    return {
      kind: "test.pay",
      firstStep: "sign",
      steps: {
        sign: async (s) => { log.push("sign"); if (crashIn === "sign") throw new Error("crash"); return { next: "broadcast", state: { ...s, txid: "ab".repeat(32) } }; },
        broadcast: async (s) => { log.push("broadcast"); if (crashIn === "broadcast") throw new Error("crash"); return { next: "confirm", state: { ...s, broadcasts: s.broadcasts + 1 } }; },
        confirm: async (s) => { log.push("confirm"); return s.broadcasts > 0 ? { done: true, state: s } : { failed: "never broadcast", state: s }; },
      },
      onEnd: (id, outcome) => { ended?.push(`${id}:${outcome}`); },
    };
  }

  it("runs the steps in order, persisting the state between them", async () => {
    const db = await open();
    const log: string[] = [];
    const ended: string[] = [];
    const engine = new ActionEngine(db, silentLogger);
    engine.define(payDefinition(log, undefined, ended));
    const st = await engine.start("test.pay", { amount: 5, broadcasts: 0 }, "a1");
    expect(log).to.deep.equal(["sign", "broadcast", "confirm"]);
    expect(st).to.deep.include({ step: "done", state: { amount: 5, txid: "ab".repeat(32), broadcasts: 1 } });
    expect(ended).to.deep.equal(["a1:done"]);
    await db.close();
  });

  it("tells timing observers how long each phase took: begin, each step's run, and each outcome's recording (local steps inside it)", async () => {
    const db = await open();
    const engine = new ActionEngine(db, silentLogger);
    const heard: [string, string, number][] = [];
    engine.observeTimings((kind, phase, seconds) => heard.push([kind, phase, seconds]));
    engine.define({
      kind: "test.timed",
      firstStep: "prepare",
      localSteps: ["prepare", "settle"],
      steps: {
        prepare: async (s) => ({ next: "call", state: s }),
        call: async (s) => { await new Promise((r) => setTimeout(r, 30)); return { next: "settle", state: s }; },
        settle: async (s) => ({ done: true, state: s }),
      },
    });
    await engine.start("test.timed", {}, "t1");
    expect(heard.map(([kind, phase]) => `${kind} ${phase}`)).to.deep.equal(["test.timed begin", "test.timed call", "test.timed record:call"]);
    expect(heard[1]![2], "the step's own run, in seconds").to.be.within(0.025, 5);
    for (const [, , seconds] of heard) expect(seconds).to.be.at.least(0);
    await db.close();
  });

  it("resumes an interrupted action after a restart from its last saved step, never re-running finished steps", async () => {
    let db = await open();
    const log: string[] = [];
    let engine = new ActionEngine(db, silentLogger);
    engine.define(payDefinition(log, "broadcast"));
    let err: unknown;
    await engine.start("test.pay", { amount: 7, broadcasts: 0 }, "a2").catch((e: unknown) => { err = e; });
    expect(String(err)).to.contain("crash");
    expect((await engine.status("a2"))!.step).to.equal("broadcast");
    await db.close();

    db = await open(); // "restart"
    engine = new ActionEngine(db, silentLogger);
    const log2: string[] = [];
    engine.define(payDefinition(log2));
    await engine.resumeAll();
    expect(log2).to.deep.equal(["broadcast", "confirm"]);
    expect((await engine.status<PayState>("a2"))!).to.deep.include({ step: "done", state: { amount: 7, txid: "ab".repeat(32), broadcasts: 1 } });
    await db.close();
  });

  it("parks a waiting step until its time and shares one run between concurrent drivers", async () => {
    const db = await open();
    let clock = 1000;
    let polls = 0;
    const engine = new ActionEngine(db, silentLogger, () => clock);
    engine.define<{ n: number }>({
      kind: "test.wait", firstStep: "poll",
      steps: { poll: async (s) => { polls++; return polls < 2 ? { waitMs: 500, state: { n: s.n + 1 } } : { done: true, state: s }; } },
    });
    const first = await engine.start("test.wait", { n: 0 }, "w1");
    expect(first.step).to.equal("poll");
    expect(polls).to.equal(1);
    await engine.resumeAll(); // too early: not driven
    expect(polls).to.equal(1);
    clock += 600;
    const [a, b] = await Promise.all([engine.drive("w1"), engine.drive("w1")]);
    expect(a).to.deep.equal(b);
    expect(polls).to.equal(2);
    expect((await engine.status("w1"))!).to.deep.include({ step: "done", state: { n: 1 } });
    expect(await engine.unfinished("test.wait")).to.deep.equal([]);
    await db.close();
  });

  it("records a failure with its reason", async () => {
    const db = await open();
    const engine = new ActionEngine(db, silentLogger);
    engine.define<{ ok: boolean }>({ kind: "test.fail", firstStep: "go", steps: { go: async (s) => ({ failed: "server refused", state: s }) } });
    expect(await engine.start("test.fail", { ok: false }, "f1")).to.deep.include({ step: "failed", error: "server refused" });
    await db.close();
  });
  /** reserve (local) → note (local) → call (outside) → settle (local); `crashIn` throws there. */
  function localDefinition(db: Database, log: string[], crashIn?: string): ActionDefinition<{ n: number }> {
    const mark = async (id: string, what: string) => {
      const em = db.em();
      em.create(ActionRecord, { id: `${id}:${what}`, kind: "test.marker", step: "done", state: "{}", error: null, notBefore: 0n, updatedAt: 0n });
      await em.flush();
    };
    const local = (name: string, next: string | null) => async (s: { n: number }, { id }: { id: string }) => {
      log.push(name);
      await mark(id, name);
      if (crashIn === name) throw new Error("crash");
      return next ? { next, state: { n: s.n + 1 } } : { done: true as const, state: { n: s.n + 1 } };
    };
    return {
      kind: "test.local", firstStep: "reserve", localSteps: ["reserve", "note", "settle"],
      steps: {
        reserve: local("reserve", "note"),
        note: local("note", "call"),
        call: async (s) => { log.push("call"); if (crashIn === "call") throw new Error("crash"); return { next: "settle", state: { n: s.n + 1 } }; },
        settle: local("settle", null),
      },
      onEnd: async (id) => { await mark(id, "ended"); },
    };
  }
  const markers = async (db: Database, id: string) =>
    (await db.em().find(ActionRecord, { kind: "test.marker", id: { $like: `${id}:%` } })).map((r) => r.id.slice(id.length + 1)).sort();

  it("begin() saves the action and runs its leading local steps in one transaction, drive() the rest; a local step ending the action commits with the end", async () => {
    const db = await open();
    const log: string[] = [];
    const engine = new ActionEngine(db, silentLogger);
    engine.define(localDefinition(db, log));
    const begun = await engine.begin("test.local", { n: 0 }, "l1");
    expect(log).to.deep.equal(["reserve", "note"]);
    expect(begun).to.deep.include({ step: "call", state: { n: 2 } });
    expect(await markers(db, "l1")).to.deep.equal(["note", "reserve"]);
    const done = await engine.drive("l1");
    expect(log).to.deep.equal(["reserve", "note", "call", "settle"]);
    expect(done).to.deep.include({ step: "done", state: { n: 4 } });
    expect(await markers(db, "l1")).to.deep.equal(["ended", "note", "reserve", "settle"]);
    await db.close();
  });

  it("a crash inside a leading local step leaves no trace of the action (its row commits with them); a crash after them keeps what they committed, and the action resumes", async () => {
    let db = await open();
    const log: string[] = [];
    let engine = new ActionEngine(db, silentLogger);
    engine.define(localDefinition(db, log, "note"));
    let err: unknown;
    await engine.start("test.local", { n: 0 }, "l2").catch((e: unknown) => { err = e; });
    expect(String(err)).to.contain("crash");
    expect(log).to.deep.equal(["reserve", "note"]);
    expect(await markers(db, "l2")).to.deep.equal([]); // reserve's write rolled back with note's
    expect(await engine.status("l2")).to.equal(undefined); // and the new row with them

    // the outside step crashing keeps what the local steps before it committed
    engine = new ActionEngine(db, silentLogger);
    engine.define(localDefinition(db, log, "call"));
    err = undefined;
    await engine.start("test.local", { n: 0 }, "l2").catch((e: unknown) => { err = e; });
    expect(String(err)).to.contain("crash");
    expect(await markers(db, "l2")).to.deep.equal(["note", "reserve"]);
    expect(await engine.status("l2")).to.deep.include({ step: "call", state: { n: 2 } });
    await db.close();

    db = await open(); // "restart"
    const log2: string[] = [];
    engine = new ActionEngine(db, silentLogger);
    engine.define(localDefinition(db, log2));
    await engine.resumeAll();
    expect(log2).to.deep.equal(["call", "settle"]);
    expect(await engine.status("l2")).to.deep.include({ step: "done", state: { n: 4 } });
    expect(await markers(db, "l2")).to.deep.equal(["ended", "note", "reserve", "settle"]);
    await db.close();
  });
});
