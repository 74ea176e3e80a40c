import { chainSourceContract } from "./chain-source.contract.js";
import { bitcoindReal } from "./real-bitcoind.js";

const exe = process.env.BITCOIND_EXE;

if (exe) {
  chainSourceContract(`BitcoindChainSource on a real bitcoind (${exe})`, () => bitcoindReal(exe));
} else {
  describe("ChainSource contract: BitcoindChainSource on a real bitcoind", () => {
    it("runs the contract against a real bitcoind", function () {
      console.log(
        "      skipped: BITCOIND_EXE is not set (point it at a bitcoind binary to run the contract against Bitcoin Core); " +
          "Docker/testcontainers is not available on this machine, so no container can provide one either",
      );
      this.skip();
    });
  });
}
