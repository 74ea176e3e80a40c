import { expect } from "chai";
import { EventBus, InternalServerError, NoWalletError, WalletScope, WalletSession, silentLogger } from "@tender/core";
import { OnchainWalletService, openedOnchainWallet, type OnchainWallet } from "../src/index.js";

describe("the on-chain wallet service, as the routes answer for it", () => {
  const setup = (create: () => Promise<OnchainWallet>) => {
    const scope = new WalletScope(silentLogger);
    scope.register("onchain", OnchainWalletService, { create });
    return { session: new WalletSession(new EventBus(silentLogger), scope), onchain: scope.handle(OnchainWalletService) };
  };
  const wallet = { fingerprint: "00000000", network: "regtest" };

  it("answers 422 No wallet set without a wallet", async () => {
    const { onchain } = setup(async () => ({}) as OnchainWallet);
    const err = await openedOnchainWallet(onchain).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(NoWalletError);
    expect((err as NoWalletError).message).to.equal("No wallet set");
  });

  it("answers 500 naming the cause when the wallet could not be opened, and gives the wallet once it is", async () => {
    const failing = setup(async () => { throw new Error("disk on fire"); });
    await failing.session.load(wallet);
    const err = await openedOnchainWallet(failing.onchain).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(InternalServerError);
    expect((err as Error).message).to.equal("the on-chain wallet could not be opened: disk on fire");
    expect(failing.onchain.current).to.equal(undefined);

    const opened = {} as OnchainWallet;
    const working = setup(async () => opened);
    await working.session.load(wallet);
    expect(await openedOnchainWallet(working.onchain)).to.equal(opened);
    expect(working.onchain.current).to.equal(opened);
  });
});
