import type { EntryContext } from "@remix-run/node";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cachedPageHandle } from "./page-handle";
import { cachedPage, cacheablePage, clearRenderCache, dataKey, MAX_CACHED_PAGES, rememberPage } from "./render-cache.server";

type PageData = { captcha?: { captchaId: string; question: string }; today?: string; reply?: Promise<string> };

/** What entry.server gets from Remix for a page at /visita, with the given loader data. */
function context(pageData: PageData | undefined, { handle = cachedPageHandle(["captcha.captchaId", "captcha.question"]), actionData = null as unknown, rootData = { theme: "system" } } = {}) {
  return {
    staticHandlerContext: {
      matches: [{ route: { id: "root" } }, { route: { id: "routes/visita" } }],
      loaderData: { root: rootData, "routes/visita": pageData },
      actionData,
      errors: null,
    },
    routeModules: { root: {}, "routes/visita": { handle } },
  } as unknown as EntryContext;
}

const get = (url = "http://casa.test/visita") => new Request(url);
let challenge = 0;
const captcha = () => ({ captchaId: `id-${++challenge}-abcdefgh`, question: `¿Cuánto es ${(challenge % 9) + 1} + 2?` });
/** The page React would render for this data. */
const render = (data: PageData, extra = "") =>
  `<html><p>${data.today ?? ""}${extra}</p><input name="captchaId" value="${data.captcha?.captchaId}"><span>${data.captcha?.question}</span><script>ctx(["captchaId","${data.captcha?.captchaId}"])</script></html>`;

/** One request through the cache as entry.server takes it: a hit, or a render offered to the cache. */
function serve(data: PageData, { url = "http://casa.test/visita", extra = "" } = {}) {
  const page = cacheablePage(get(url), 200, context(data));
  if (!page) return { html: render(data, extra), from: "render" };
  const hit = cachedPage(page);
  if (hit !== null) return { html: hit.toString("utf8"), from: "cache" };
  const html = render(data, extra);
  rememberPage(page, html);
  return { html, from: "render" };
}

beforeEach(() => {
  vi.stubEnv("NODE_ENV", "production");
  clearRenderCache();
});
afterEach(() => vi.unstubAllEnvs());

describe("the render cache", () => {
  it("fills the response's own holes (the scripts' nonce) with this response's value", () => {
    const nonceOf = (n: number) => `nonce-${n}-abcdefghijkl`;
    const serveWithNonce = (nonce: string) => {
      const page = cacheablePage(get(), 200, context({ today: "2026-11-24" }, { handle: cachedPageHandle() }), [nonce])!;
      const hit = cachedPage(page);
      if (hit !== null) return { html: hit.toString("utf8"), from: "cache" };
      rememberPage(page, `<html><script nonce="${nonce}">go()</script></html>`);
      return { html: "", from: "render" };
    };
    expect(serveWithNonce(nonceOf(1)).from).toBe("render");
    expect(serveWithNonce(nonceOf(2)).from).toBe("render");
    expect(serveWithNonce(nonceOf(3))).toEqual({ html: `<html><script nonce="${nonceOf(3)}">go()</script></html>`, from: "cache" });
  });

  it("serves a page once two renders agree, with this request's challenge in every place the page shows it", () => {
    expect(serve({ captcha: captcha(), today: "2026-11-24" }).from).toBe("render");
    expect(serve({ captcha: captcha(), today: "2026-11-24" }).from).toBe("render");
    const mine = captcha();
    const reused = serve({ captcha: mine, today: "2026-11-24" });
    expect(reused.from).toBe("cache");
    expect(reused.html).toBe(render({ captcha: mine, today: "2026-11-24" }));
  });

  it("fills a hole with its value as written, even one with $ patterns", () => {
    const withDollars = () => ({ captchaId: `id-${++challenge}-$1$$x`, question: `¿Cuánto es $$ + ${challenge}?` });
    serve({ captcha: withDollars() });
    serve({ captcha: withDollars() });
    const mine = withDollars();
    const reused = serve({ captcha: mine });
    expect(reused.from).toBe("cache");
    expect(reused.html).toBe(render({ captcha: mine }));
  });

  it("renders again when the loaders return anything else, or for another URL", () => {
    serve({ captcha: captcha(), today: "2026-11-24" });
    serve({ captcha: captcha(), today: "2026-11-24" });
    expect(serve({ captcha: captcha(), today: "2026-11-25" }).from).toBe("render");
    expect(serve({ captcha: captcha(), today: "2026-11-24" }, { url: "http://casa.test/visita?x=1" }).from).toBe("render");
    const other = cacheablePage(get(), 200, context({ captcha: captcha(), today: "2026-11-24" }, { rootData: { theme: "dark" } }));
    expect(other && cachedPage(other)).toBeNull();
  });

  it("keys the data so that every value a loader can return is told apart", () => {
    const values: unknown[] = [
      new Map([["a", 1]]),
      new Map([["a", 2]]),
      new Map([["b", 1]]),
      new Map(),
      new Set(["a"]),
      new Set(["b"]),
      new Set(),
      new Date("2026-12-08T10:00:00Z"),
      new Date("2026-12-08T11:00:00Z"),
      "2026-12-08T10:00:00.000Z",
      { a: undefined },
      {},
      { a: null },
      [undefined],
      // eslint-disable-next-line no-sparse-arrays
      [, 1],
      [undefined, 1],
      [],
      0,
      -0,
      "0",
      1n,
      true,
      "T",
      null,
      "null",
      undefined,
      [["a", 1]],
      { a: 1 },
      { "a,b": 1 },
      { a: { b: 1 } },
    ];
    const keys = values.map((value) => dataKey({ root: value }));
    expect(keys.every((key) => typeof key === "string")).toBe(true);
    expect(new Set(keys).size).toBe(values.length);
    // Equal values, equal keys: a cache that pays.
    expect(dataKey({ a: new Map([["x", new Set([new Date(0)])]]) })).toBe(dataKey({ a: new Map([["x", new Set([new Date(0)])]]) }));
    // What it cannot write has no key: the page is rendered.
    expect(dataKey({ a: new (class Money {})() })).toBeNull();
    expect(dataKey({ a: () => 1 })).toBeNull();
    expect(dataKey({ a: Promise.resolve(1) })).toBeNull();
  });

  it("renders again when two Maps or two Sets differ only in their contents", () => {
    type MapPage = { captcha: { captchaId: string; question: string }; rooms: Map<string, number> };
    const serveMap = (rooms: Map<string, number>) => {
      const data: MapPage = { captcha: captcha(), rooms };
      const page = cacheablePage(get(), 200, context(data as unknown as PageData));
      expect(page).not.toBeNull();
      const hit = cachedPage(page!);
      if (hit !== null) return "cache";
      rememberPage(page!, render(data as unknown as PageData, JSON.stringify([...rooms])));
      return "render";
    };
    serveMap(new Map([["doble", 2]]));
    serveMap(new Map([["doble", 2]]));
    expect(serveMap(new Map([["doble", 2]]))).toBe("cache");
    expect(serveMap(new Map([["doble", 0]]))).toBe("render");
  });

  it("never stores a page whose output depends on more than its data", () => {
    for (let i = 0; i < 5; i++) expect(serve({ captcha: captcha() }, { extra: `rendered at ${i}` }).from).toBe("render");
  });

  it("keeps ordinary text that happens to equal a challenge, and stores nothing from two renders with the same challenge", () => {
    const first = captcha();
    serve({ captcha: first }, { extra: first.question });
    // The same challenge twice (a repeat of one request) cuts the same text out both times: no proof.
    serve({ captcha: first }, { extra: first.question });
    expect(serve({ captcha: captcha() }, { extra: first.question }).from).toBe("render");
    serve({ captcha: captcha() }, { extra: first.question });
    const mine = captcha();
    const reused = serve({ captcha: mine }, { extra: first.question });
    expect(reused.from).toBe("cache");
    expect(reused.html).toBe(render({ captcha: mine }, first.question));
  });

  it("leaves out pages that did not opt in, posts, action replies, errors and data it cannot compare", () => {
    const data = { captcha: captcha() };
    expect(cacheablePage(get(), 200, context(data, { handle: {} as never }))).toBeNull();
    expect(cacheablePage(new Request("http://casa.test/visita", { method: "POST" }), 200, context(data))).toBeNull();
    expect(cacheablePage(get(), 200, context(data, { actionData: { "routes/visita": { result: {} } } }))).toBeNull();
    expect(cacheablePage(get(), 404, context(data))).toBeNull();
    expect(cacheablePage(get(), 200, context({ ...data, reply: Promise.resolve("later") }))).toBeNull();
    // A challenge that HTML or JSON would escape, or too short to stand out.
    expect(cacheablePage(get(), 200, context({ captcha: { captchaId: 'a"b<c>defgh', question: "¿Cuánto es 1 + 1?" } }))).toBeNull();
    expect(cacheablePage(get(), 200, context({ captcha: { captchaId: "short", question: "¿Cuánto es 1 + 1?" } }))).toBeNull();
    expect(cacheablePage(get(), 200, context(undefined))).toBeNull();
  });

  it("is off outside production, where components change under a running server", () => {
    vi.stubEnv("NODE_ENV", "development");
    expect(cacheablePage(get(), 200, context({ captcha: captcha() }))).toBeNull();
  });

  it(`keeps at most ${MAX_CACHED_PAGES} pages, dropping the least recently used`, () => {
    const fill = (i: number) => serve({ captcha: captcha() }, { url: `http://casa.test/visita?n=${i}` }).from;
    fill(0);
    fill(0);
    for (let i = 1; i <= MAX_CACHED_PAGES; i++) {
      fill(i);
      fill(i);
      if (i === 1) expect(fill(0)).toBe("cache"); // used again: no longer the oldest
    }
    expect(fill(0)).toBe("cache");
    expect(fill(1)).toBe("render");
  });
});
