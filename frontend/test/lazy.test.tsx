// @vitest-environment jsdom
// lazyPage: a page fetched with import() when first shown — "Loading…"
// until it is there, then the page with its props; a failed fetch says so
// and a later visit fetches again; once loaded, it shows at once.
import { afterEach, describe, expect, it } from "vitest";
import { setLang } from "../src/i18n";
import { lazyPage } from "../src/lazy";
import { $, cleanup, flush, mount, text, waitFor } from "./dom";

function Hello({ name }: { name: string }) {
  return <p class="hello">Hello {name}</p>;
}

describe("lazyPage", () => {
  afterEach(cleanup);

  it("shows Loading, then the page; the second time at once", async () => {
    setLang("en");
    let release!: () => void;
    let loads = 0;
    const Page = lazyPage(() => {
      loads++;
      return new Promise<typeof Hello>((r) => (release = () => r(Hello)));
    });
    const first = await mount(<Page name="Ada" />);
    expect(text(first.host)).toContain("Loading");
    release();
    await waitFor(() => $(first.host, ".hello"), "the page");
    expect(text(first.host)).toBe("Hello Ada");
    first.unmount();
    const second = await mount(<Page name="Bob" />);
    expect(text(second.host)).toBe("Hello Bob");
    expect(loads).toBe(1);
  });

  it("says when the chunk cannot be fetched, and fetches again on the next visit", async () => {
    setLang("en");
    let fail = true;
    const Page = lazyPage(() => (fail ? Promise.reject(new Error("Failed to fetch dynamically imported module")) : Promise.resolve(Hello)));
    const first = await mount(<Page name="Ada" />);
    await waitFor(() => $(first.host, ".alert-error, [role=alert]"), "the error");
    expect(text(first.host)).toContain("Failed to fetch dynamically imported module");
    first.unmount();
    fail = false;
    const second = await mount(<Page name="Ada" />);
    await flush();
    expect(text(second.host)).toBe("Hello Ada");
  });
});
