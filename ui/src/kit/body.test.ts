import { describe, expect, test } from "bun:test";
import {
  bodyBytes,
  bodyFileName,
  bodyText,
  bodyViews,
  formFields,
  hexDump,
  prettyJson,
  prettyXml,
} from "./body.ts";

const base64 = (bytes: number[]) => Buffer.from(bytes).toString("base64");

describe("body decoding", () => {
  test("utf8 text is its own bytes; base64 bodies are decoded", () => {
    expect([...bodyBytes({ body: "é", body_encoding: "utf8" })]).toEqual([0xc3, 0xa9]);
    expect([...bodyBytes({ body: base64([0, 255, 16]), body_encoding: "base64" })]).toEqual([
      0, 255, 16,
    ]);
  });
  test("base64 text that is valid UTF-8 reads as text; binary reads as null", () => {
    expect(bodyText({ body: base64([0x68, 0x69]), body_encoding: "base64" })).toBe("hi");
    expect(bodyText({ body: base64([0xff, 0xfe, 0x00]), body_encoding: "base64" })).toBeNull();
  });
});

describe("pretty JSON", () => {
  test("indents objects and arrays", () => {
    expect(prettyJson('{"a":1,"b":[true,null]}')).toBe(
      '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}',
    );
  });
  test("refuses what is not JSON", () => {
    expect(prettyJson("a=1")).toBeNull();
    expect(prettyJson("{broken")).toBeNull();
    expect(prettyJson("")).toBeNull();
  });
});

describe("pretty XML", () => {
  test("one element per line, text kept inline", () => {
    expect(prettyXml('<?xml version="1.0"?><a><b x="1">hi</b><c/><d><e>2</e></d></a>')).toBe(
      [
        '<?xml version="1.0"?>',
        "<a>",
        '  <b x="1">hi</b>',
        "  <c/>",
        "  <d>",
        "    <e>2</e>",
        "  </d>",
        "</a>",
      ].join("\n"),
    );
  });
  test("keeps comments and CDATA", () => {
    expect(prettyXml("<a><!-- note --><![CDATA[<x>]]></a>")).toBe(
      "<a>\n  <!-- note -->\n  <![CDATA[<x>]]>\n</a>",
    );
  });
  test("refuses unbalanced tags and non-XML", () => {
    expect(prettyXml("<a><b></a>")).toBeNull();
    expect(prettyXml("<a>")).toBeNull();
    expect(prettyXml("plain text")).toBeNull();
  });
});

describe("form fields", () => {
  test("ordered pairs with repeats, decoded", () => {
    expect(formFields("a=1&b=hello+world&a=%C3%A9")).toEqual([
      ["a", "1"],
      ["b", "hello world"],
      ["a", "é"],
    ]);
  });
  test("refuses JSON and plain sentences", () => {
    expect(formFields('{"a":"b=c"}')).toBeNull();
    expect(formFields("hello world")).toBeNull();
  });
});

describe("hex dump", () => {
  test("offset, two groups of eight bytes and ASCII", () => {
    const bytes = new TextEncoder().encode("Hello, Weir!\n\u0000\u0001ABCDEFG");
    expect(hexDump(bytes).split("\n")).toEqual([
      "00000000  48 65 6c 6c 6f 2c 20 57  65 69 72 21 0a 00 01 41  |Hello, Weir!...A|",
      "00000010  42 43 44 45 46 47                                 |BCDEFG|",
    ]);
  });
  test("cut after the limit, saying how much is left", () => {
    const dump = hexDump(new Uint8Array(40), 16);
    expect(dump.split("\n")).toHaveLength(2);
    expect(dump).toContain("24 more bytes");
  });
});

describe("views offered", () => {
  test("the content type's view first, raw and hex always", () => {
    expect(bodyViews("application/json", '{"a":1}')).toEqual(["json", "raw", "hex"]);
    expect(bodyViews("application/xml; charset=utf-8", "<a/>")).toEqual(["xml", "raw", "hex"]);
    expect(bodyViews("application/x-www-form-urlencoded", "a=1")).toEqual(["form", "raw", "hex"]);
  });
  test("sniffs JSON sent with a wrong content type", () => {
    expect(bodyViews("text/plain", "[1,2]")).toEqual(["json", "raw", "hex"]);
  });
  test("binary bodies get hex only; empty bodies raw only", () => {
    expect(bodyViews("application/octet-stream", null)).toEqual(["hex"]);
    expect(bodyViews(null, "")).toEqual(["raw"]);
  });
  test("download names follow the content type", () => {
    expect(bodyFileName("r1", "application/json")).toBe("request-r1.json");
    expect(bodyFileName("r1", "image/png")).toBe("request-r1.bin");
  });
});
