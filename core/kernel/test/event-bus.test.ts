import { expect } from "chai";
import { EventBus, createLogger, defineEvent } from "../src/index.js";

describe("event bus", () => {
  const Ping = defineEvent<{ n: number }>("test.ping");

  it("delivers a payload to every subscriber until it unsubscribes", () => {
    const bus = new EventBus(createLogger({ terminalLevel: "off" }));
    const seen: number[] = [];
    const off = bus.on(Ping, (p) => { seen.push(p.n); });
    bus.on(Ping, (p) => { seen.push(p.n * 10); });
    bus.emit(Ping, { n: 1 });
    off();
    bus.emit(Ping, { n: 2 });
    expect(seen).to.deep.equal([1, 10, 20]);
  });

  it("isolates a failing handler: the others still run and the failure is logged", async () => {
    const lines: string[] = [];
    const bus = new EventBus(createLogger({ terminalLevel: "off", sink: (l) => lines.push(l) }));
    let reached = false;
    bus.on(Ping, () => { throw new Error("sync boom"); });
    bus.on(Ping, async () => { throw new Error("async boom"); });
    bus.on(Ping, () => { reached = true; });
    bus.emit(Ping, { n: 1 });
    await new Promise((r) => setImmediate(r));
    expect(reached).to.equal(true);
    expect(lines.some((l) => l.includes("sync boom"))).to.equal(true);
    expect(lines.some((l) => l.includes("async boom"))).to.equal(true);
  });
});
