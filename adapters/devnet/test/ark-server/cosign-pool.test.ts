/**
 * The signing threads of the reference server: the same bytes as signing in this thread, the
 * original error for a job that cannot be signed, in-thread signing with no threads, and work
 * going on after the threads were stopped.
 */
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { MusigError, musigNonceGen, musigRespondCosignDeterministic, pubkeyFromSecret, toHex } from "@tender/ark-protocol";
import { existsSync, readdirSync } from "node:fs";
import { CosignPool, osThreadId, packJobs, unpackJobs, type CosignJob } from "../../src/ark-server/cosign-pool.js";

const rand = () => new Uint8Array(randomBytes(32));

function jobs(n: number): CosignJob[] {
  const sk = rand();
  return Array.from({ length: n }, (_, i) => {
    const userSk = rand();
    const userPk = pubkeyFromSecret(userSk);
    const message = rand();
    const job: CosignJob = { secretKey: sk, pubkey: pubkeyFromSecret(sk), otherPubkey: userPk, otherPubNonce: musigNonceGen({ pubkey: userPk, secretKey: userSk, message }).pubNonce, message };
    return i % 2 ? { ...job, tweak: rand() } : job;
  });
}

const hex = (rs: { pubNonce: Uint8Array; partialSig: Uint8Array }[]) => rs.map((r) => toHex(r.pubNonce) + toHex(r.partialSig));
const here = (js: CosignJob[]) => hex(js.map((j) => musigRespondCosignDeterministic(j)));

describe("ark server signing threads", function () {
  this.timeout(30_000);

  it("tells the operating system's ids of its threads once they run (Linux; the bench reads their CPU time)", async function () {
    if (!existsSync("/proc/thread-self")) {
      console.log("    (skipped: no /proc/thread-self on this system; the pool then tells no ids)");
      return this.skip();
    }
    const pool = new CosignPool(2);
    try {
      expect(pool.osThreadIds()).to.deep.equal([]);
      await pool.warm();
      const ids = pool.osThreadIds();
      expect(ids).to.have.length(2);
      const tasks = readdirSync("/proc/self/task").map(Number);
      for (const id of ids) expect(tasks, `thread ${id} is one of this process's`).to.include(id);
      expect(ids).to.not.include(osThreadId()); // not this (the main) thread
      expect(osThreadId()).to.equal(process.pid);
    } finally {
      await pool.close();
    }
    expect(pool.osThreadIds()).to.deep.equal([]);
  });

  it("packs jobs with and without a tweak losslessly", () => {
    const js = jobs(3);
    const back = unpackJobs(packJobs(js));
    expect(back.map((j) => [toHex(j.secretKey), toHex(j.pubkey), toHex(j.otherPubkey), toHex(j.otherPubNonce), toHex(j.message), j.tweak ? toHex(j.tweak) : null])).to.deep.equal(
      js.map((j) => [toHex(j.secretKey), toHex(j.pubkey), toHex(j.otherPubkey), toHex(j.otherPubNonce), toHex(j.message), j.tweak ? toHex(j.tweak) : null]),
    );
  });

  it("gives the bytes of signing in this thread, in job order, for concurrent calls", async () => {
    const pool = new CosignPool(2);
    try {
      await pool.warm();
      const calls = Array.from({ length: 6 }, (_, i) => jobs(i + 1));
      const got = await Promise.all(calls.map((c) => pool.sign(c)));
      got.forEach((g, i) => expect(hex(g)).to.deep.equal(here(calls[i]!)));
      expect(pool.stats.signatures).to.equal(21);
    } finally {
      await pool.close();
    }
  });

  it("raises the error signing in this thread raises for a job it cannot sign", async () => {
    const pool = new CosignPool(2);
    try {
      const [good] = jobs(1);
      // a secret key out of range fails inside the signing (past the nonce derivation)
      const outOfRange = { ...good!, secretKey: new Uint8Array(32).fill(0xff) };
      const inThread = (() => {
        try {
          musigRespondCosignDeterministic(outOfRange);
          return null;
        } catch (e) {
          return e;
        }
      })();
      expect(inThread).to.be.instanceOf(MusigError);
      const viaPool = await pool.sign([good!, outOfRange]).then(() => null, (e: unknown) => e);
      expect(viaPool).to.be.instanceOf(MusigError);
      expect((viaPool as Error).message).to.equal((inThread as Error).message);
      const short = { ...good!, otherPubNonce: good!.otherPubNonce.subarray(0, 65) };
      const e = await pool.sign([short, good!]).then(() => null, (x: unknown) => x);
      expect(e).to.be.instanceOf(MusigError);
      expect((e as Error).message).to.equal("public nonce must be 66 bytes, got 65");
    } finally {
      await pool.close();
    }
  });

  it("signs in this thread when it has no threads", async () => {
    const pool = new CosignPool(0);
    const js = jobs(3);
    expect(hex(await pool.sign(js))).to.deep.equal(here(js));
    expect(pool.stats.signatures).to.equal(0);
  });

  it("starts new threads after being stopped", async () => {
    const pool = new CosignPool(1);
    const js = jobs(2);
    expect(hex(await pool.sign(js))).to.deep.equal(here(js));
    await pool.close();
    expect(hex(await pool.sign(js))).to.deep.equal(here(js));
    await pool.close();
  });
});
