import { expect } from "chai";
import { BadRequestError } from "@tender/core";
import { requestedIds } from "../src/round-routes.js";

const ID = "ab".repeat(32) + ":1";

describe("refresh request ids (barkd's validation order and texts)", () => {
  it("refuses an empty list with barkd's 400", () => {
    expect(() => requestedIds([])).to.throw(BadRequestError, /^No VTXO IDs provided$/);
  });

  it("refuses any id that does not parse, even after valid ones, with barkd's 400 prefix", () => {
    for (const bad of ["nope", ID.slice(1), `${ID} `, "ab".repeat(32)]) {
      expect(() => requestedIds([ID, bad]), bad).to.throw(BadRequestError, /^bad request: Invalid VTXO id: /);
    }
  });

  it("keeps the ids in order and duplicates in place (a duplicate is the participation builder's 500)", () => {
    expect(requestedIds([ID, ID])).to.deep.equal([ID, ID]);
  });
});
