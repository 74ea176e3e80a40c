import { expect } from "chai";
import { orderPlugins, PluginGraphError, type TenderPlugin } from "../src/index.js";

const p = (name: string, dependencies: string[] = []): TenderPlugin => ({ name, version: "1.0.0", dependencies, register() {} });

describe("plugin ordering", () => {
  it("loads every plugin after the plugins it needs, keeping the given order otherwise", () => {
    const order = orderPlugins([p("notifications", ["wallet"]), p("ark", ["wallet", "bitcoin"]), p("wallet"), p("bitcoin")]);
    expect(order.map((x) => x.name)).to.deep.equal(["wallet", "notifications", "bitcoin", "ark"]);
  });

  it("refuses a missing dependency, naming both plugins", () => {
    expect(() => orderPlugins([p("ark", ["wallet"])])).to.throw(PluginGraphError, "plugin ark needs plugin wallet, which is not enabled");
  });

  it("refuses a dependency cycle, naming the plugins on it", () => {
    expect(() => orderPlugins([p("a", ["b"]), p("b", ["c"]), p("c", ["a"])])).to.throw(PluginGraphError, "plugin dependency cycle: a -> b -> c -> a");
  });

  it("refuses a plugin enabled twice", () => {
    expect(() => orderPlugins([p("wallet"), p("wallet")])).to.throw(PluginGraphError, "plugin wallet is enabled twice");
  });
});
