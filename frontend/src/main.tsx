import { render } from "preact";
import "./styles.css";
import { App } from "./app";
import { initLang } from "./i18n";
import { installLinkHandler } from "./router";
import { loadSession } from "./state";

initLang();
installLinkHandler();
void loadSession();
render(<App />, document.getElementById("app")!);
