// Every string the app shows, in English and Simplified Chinese. One table:
// `en` defines the keys (TypeScript checks every t("...") call against it),
// `zh` must have exactly the same keys (checked by the type and by
// test/i18n.test.ts, which also checks the {placeholders} match).

const en = {
  "app.name": "Verdict",
  "app.skip": "Skip to content",
  "nav.problems": "Problems",
  "nav.contests": "Contests",
  "nav.submissions": "My submissions",
  "nav.admin": "Admin",
  "nav.login": "Log in",
  "nav.logout": "Log out",
  "nav.register": "Register",
  "nav.language": "Language",
  "nav.main": "Main navigation",
  "nav.signedInAs": "Signed in as {name}",

  "common.loading": "Loading…",
  "common.retry": "Retry",
  "common.save": "Save",
  "common.create": "Create",
  "common.delete": "Delete",
  "common.cancel": "Cancel",
  "common.more": "Load more",
  "common.none": "Nothing here yet.",
  "common.error": "Something went wrong: {message}",
  "common.notFound": "Page not found.",
  "common.networkError": "Cannot reach the server. Check your connection.",
  "common.loginRequired": "Please log in first.",
  "common.forbidden": "You are not allowed to do this.",
  "common.rateLimited": "Too many requests; wait {seconds} s and try again.",
  "common.unavailable": "The service is temporarily unavailable: {message}",
  "common.ms": "{n} ms",
  "common.kb": "{n} KB",
  "common.mb": "{n} MB",
  "common.seconds": "{n} s",
  "common.yes": "yes",
  "common.no": "no",

  "login.title": "Log in",
  "login.username": "Username",
  "login.password": "Password",
  "login.submit": "Log in",
  "login.noAccount": "No account yet?",
  "login.failed": "Wrong username or password.",
  "register.title": "Register",
  "register.displayName": "Display name",
  "register.email": "Email (optional)",
  "register.submit": "Create account",
  "register.haveAccount": "Already registered?",

  "problems.title": "Problems",
  "problems.col.title": "Title",
  "problems.col.limits": "Limits",
  "problems.col.mode": "Mode",
  "problems.filter": "Filter problems",
  "problem.timeLimit": "Time limit",
  "problem.memoryLimit": "Memory limit",
  "problem.mode": "Scoring",
  "problem.mode.icpc": "all or nothing",
  "problem.mode.ioi": "partial score",
  "problem.statement": "Statement",
  "problem.submitTitle": "Submit",

  "editor.language": "Language",
  "editor.code": "Source code",
  "editor.submit": "Submit",
  "editor.submitting": "Submitting…",
  "editor.empty": "The source code is empty.",
  "editor.noLanguages": "No judge is online, so no language is available right now.",
  "editor.loadFile": "Open file",

  "verdict.AC": "Accepted",
  "verdict.WA": "Wrong Answer",
  "verdict.TLE": "Time Limit Exceeded",
  "verdict.MLE": "Memory Limit Exceeded",
  "verdict.OLE": "Output Limit Exceeded",
  "verdict.RE": "Runtime Error",
  "verdict.CE": "Compile Error",
  "verdict.PE": "Presentation Error",
  "verdict.SE": "System Error",
  "verdict.SK": "Skipped",
  "verdict.pending": "Pending",
  "verdict.queued": "Queued",
  "verdict.compiling": "Compiling",
  "verdict.judging": "Judging",
  "verdict.waiting": "Waiting",

  "submission.title": "Submission #{id}",
  "submission.problem": "Problem",
  "submission.language": "Language",
  "submission.status": "Status",
  "submission.score": "Score",
  "submission.time": "Time",
  "submission.memory": "Memory",
  "submission.submitted": "Submitted",
  "submission.cases": "Test cases",
  "submission.case": "Case",
  "submission.message": "Message",
  "submission.compileOutput": "Compiler output",
  "submission.source": "Source code",
  "submission.live": "Live",
  "submission.liveUpdating": "Results appear here as each case finishes.",
  "submission.final": "Judging finished.",

  "queue.notice": "Judges are busy: {length} submissions waiting.",
  "queue.position": "Your submission is number {position} in the queue, about {eta} to go.",
  "queue.overloaded": "Every judge is at capacity; your submission is safe and will be judged.",

  "live.connecting": "Connecting to live updates…",
  "live.reconnecting": "Live updates lost; reconnecting in {seconds} s.",
  "live.stopped": "Live updates stopped ({reason}). Reload the page to try again.",
  "live.sessionExpired": "Your session expired. Log in again for live updates.",
  "live.reconnectNow": "Reconnect now",

  "submissions.title": "My submissions",
  "submissions.filterProblem": "Problem",
  "submissions.filterVerdict": "Verdict",
  "submissions.any": "Any",
  "submissions.apply": "Filter",
  "submissions.col.id": "#",
  "submissions.col.problem": "Problem",
  "submissions.col.language": "Language",
  "submissions.col.verdict": "Verdict",
  "submissions.col.score": "Score",
  "submissions.col.time": "Time",
  "submissions.col.memory": "Memory",
  "submissions.col.when": "When",

  "contests.title": "Contests",
  "contests.col.title": "Contest",
  "contests.col.rule": "Rule",
  "contests.col.start": "Start",
  "contests.col.length": "Length",
  "contest.rule.icpc": "ICPC",
  "contest.rule.ioi": "IOI",
  "contest.startsIn": "Starts in {time}",
  "contest.endsIn": "Ends in {time}",
  "contest.ended": "Ended",
  "contest.frozen": "The scoreboard is frozen; results after the freeze are shown as pending.",
  "contest.problems": "Problems",
  "contest.scoreboard": "Scoreboard",
  "contest.clarifications": "Clarifications",
  "contest.col.label": "#",
  "contest.col.title": "Problem",
  "contest.col.points": "Points",
  "contest.countdown": "Countdown",

  "board.rank": "Rank",
  "board.user": "Contestant",
  "board.solved": "Solved",
  "board.penalty": "Penalty",
  "board.score": "Score",
  "board.empty": "No submissions yet.",
  "board.firstBlood": "first to solve",
  "board.pending": "pending",
  "board.cellSolved": "{label}: solved at minute {time}, {attempts} tries",
  "board.cellFailed": "{label}: {attempts} wrong tries",
  "board.cellPending": "{label}: {pending} pending",
  "board.cellScore": "{label}: score {score}",
  "board.cellEmpty": "{label}: not tried",

  "clar.ask": "Ask a question",
  "clar.problem": "About problem",
  "clar.general": "General",
  "clar.question": "Question",
  "clar.send": "Send",
  "clar.answer": "Answer",
  "clar.unanswered": "Not answered yet",
  "clar.sent": "Your question was sent.",

  "admin.title": "Administration",
  "admin.problems": "Problems",
  "admin.contests": "Contests",
  "admin.users": "Users",
  "admin.judges": "Judges",
  "admin.rejudge": "Rejudge",
  "admin.saved": "Saved.",
  "admin.slug": "Slug",
  "admin.titleField": "Title",
  "admin.statement": "Statement (Markdown, $math$)",
  "admin.preview": "Preview",
  "admin.timeLimit": "Time limit (ms)",
  "admin.memoryLimit": "Memory limit (KB)",
  "admin.checker": "Checker",
  "admin.tolerance": "Float tolerance",
  "admin.mode": "Mode",
  "admin.visibility": "Visibility",
  "admin.languages": "Languages (comma-separated ids, empty: all)",
  "admin.editExisting": "Edit an existing problem (slug)",
  "admin.load": "Load",
  "admin.testdata": "Test data (zip)",
  "admin.upload": "Upload",
  "admin.uploaded": "Uploaded: {cases} cases, hash {hash}.",
  "admin.description": "Description",
  "admin.rule": "Rule",
  "admin.startAt": "Start",
  "admin.endAt": "End",
  "admin.freeze": "Freeze (minutes before the end)",
  "admin.contestProblems": "Problems (one per line: label slug points)",
  "admin.csv": "CSV file (username,display_name,password,email,role)",
  "admin.import": "Import",
  "admin.imported": "Imported: {created} created, {updated} updated.",
  "admin.generatedPasswords": "Passwords generated for the new users. They are shown only now: copy them before leaving this page.",
  "admin.importErrors": "Lines with errors",
  "admin.judgeName": "Judge name",
  "admin.issueToken": "Issue token",
  "admin.tokenOnce": "Token for {name} (shown only once; copy it now):",
  "admin.revoke": "Revoke",
  "admin.confirmRevoke": "Revoke judge {name}? It will be disconnected.",
  "admin.judge.name": "Judge",
  "admin.judge.state": "State",
  "admin.judge.load": "Load",
  "admin.judge.running": "Running",
  "admin.judge.memory": "Memory",
  "admin.judge.seen": "Last seen",
  "admin.judge.online": "online",
  "admin.judge.offline": "offline",
  "admin.judge.refresh": "Live load refreshes every {seconds} s.",
  "admin.rejudgeWhat": "What to rejudge",
  "admin.rejudgeSubmission": "Submission id",
  "admin.rejudgeProblem": "Problem slug",
  "admin.rejudgeContest": "Contest slug",
  "admin.rejudgeGo": "Rejudge",
  "admin.rejudged": "{n} submissions queued for rejudging.",
  "admin.denied": "Only administrators and problem setters can open this page.",
} as const;

export type Key = keyof typeof en;
export type Table = Record<Key, string>;

const zh: Table = {
  "app.name": "Verdict",
  "app.skip": "跳到正文",
  "nav.problems": "题目",
  "nav.contests": "比赛",
  "nav.submissions": "我的提交",
  "nav.admin": "管理",
  "nav.login": "登录",
  "nav.logout": "退出",
  "nav.register": "注册",
  "nav.language": "语言",
  "nav.main": "主导航",
  "nav.signedInAs": "已登录：{name}",

  "common.loading": "加载中…",
  "common.retry": "重试",
  "common.save": "保存",
  "common.create": "创建",
  "common.delete": "删除",
  "common.cancel": "取消",
  "common.more": "加载更多",
  "common.none": "暂无内容。",
  "common.error": "出错了：{message}",
  "common.notFound": "页面不存在。",
  "common.networkError": "无法连接服务器，请检查网络。",
  "common.loginRequired": "请先登录。",
  "common.forbidden": "你没有权限执行此操作。",
  "common.rateLimited": "请求过于频繁，请 {seconds} 秒后再试。",
  "common.unavailable": "服务暂时不可用：{message}",
  "common.ms": "{n} 毫秒",
  "common.kb": "{n} KB",
  "common.mb": "{n} MB",
  "common.seconds": "{n} 秒",
  "common.yes": "是",
  "common.no": "否",

  "login.title": "登录",
  "login.username": "用户名",
  "login.password": "密码",
  "login.submit": "登录",
  "login.noAccount": "还没有账号？",
  "login.failed": "用户名或密码错误。",
  "register.title": "注册",
  "register.displayName": "显示名称",
  "register.email": "电子邮箱（可选）",
  "register.submit": "创建账号",
  "register.haveAccount": "已有账号？",

  "problems.title": "题目列表",
  "problems.col.title": "标题",
  "problems.col.limits": "限制",
  "problems.col.mode": "计分",
  "problems.filter": "筛选题目",
  "problem.timeLimit": "时间限制",
  "problem.memoryLimit": "内存限制",
  "problem.mode": "计分方式",
  "problem.mode.icpc": "全对才得分",
  "problem.mode.ioi": "按测试点得分",
  "problem.statement": "题面",
  "problem.submitTitle": "提交",

  "editor.language": "编程语言",
  "editor.code": "源代码",
  "editor.submit": "提交",
  "editor.submitting": "提交中…",
  "editor.empty": "源代码为空。",
  "editor.noLanguages": "当前没有在线的评测机，暂无可用语言。",
  "editor.loadFile": "打开文件",

  "verdict.AC": "答案正确",
  "verdict.WA": "答案错误",
  "verdict.TLE": "运行超时",
  "verdict.MLE": "内存超限",
  "verdict.OLE": "输出超限",
  "verdict.RE": "运行错误",
  "verdict.CE": "编译错误",
  "verdict.PE": "格式错误",
  "verdict.SE": "系统错误",
  "verdict.SK": "已跳过",
  "verdict.pending": "等待中",
  "verdict.queued": "排队中",
  "verdict.compiling": "编译中",
  "verdict.judging": "评测中",
  "verdict.waiting": "等待",

  "submission.title": "提交 #{id}",
  "submission.problem": "题目",
  "submission.language": "语言",
  "submission.status": "状态",
  "submission.score": "得分",
  "submission.time": "时间",
  "submission.memory": "内存",
  "submission.submitted": "提交时间",
  "submission.cases": "测试点",
  "submission.case": "测试点",
  "submission.message": "信息",
  "submission.compileOutput": "编译输出",
  "submission.source": "源代码",
  "submission.live": "实时",
  "submission.liveUpdating": "每个测试点评测完成后结果会显示在这里。",
  "submission.final": "评测已完成。",

  "queue.notice": "评测机繁忙：{length} 个提交正在等待。",
  "queue.position": "你的提交排在第 {position} 位，预计还需 {eta}。",
  "queue.overloaded": "所有评测机已满载；你的提交已保存，稍后会被评测。",

  "live.connecting": "正在连接实时更新…",
  "live.reconnecting": "实时连接已断开，{seconds} 秒后重连。",
  "live.stopped": "实时更新已停止（{reason}）。请刷新页面重试。",
  "live.sessionExpired": "登录已过期，请重新登录以接收实时更新。",
  "live.reconnectNow": "立即重连",

  "submissions.title": "我的提交",
  "submissions.filterProblem": "题目",
  "submissions.filterVerdict": "结果",
  "submissions.any": "全部",
  "submissions.apply": "筛选",
  "submissions.col.id": "#",
  "submissions.col.problem": "题目",
  "submissions.col.language": "语言",
  "submissions.col.verdict": "结果",
  "submissions.col.score": "得分",
  "submissions.col.time": "时间",
  "submissions.col.memory": "内存",
  "submissions.col.when": "提交时间",

  "contests.title": "比赛列表",
  "contests.col.title": "比赛",
  "contests.col.rule": "赛制",
  "contests.col.start": "开始时间",
  "contests.col.length": "时长",
  "contest.rule.icpc": "ICPC",
  "contest.rule.ioi": "IOI",
  "contest.startsIn": "距开始 {time}",
  "contest.endsIn": "距结束 {time}",
  "contest.ended": "已结束",
  "contest.frozen": "榜单已封榜；封榜后的提交显示为待定。",
  "contest.problems": "题目",
  "contest.scoreboard": "排行榜",
  "contest.clarifications": "答疑",
  "contest.col.label": "#",
  "contest.col.title": "题目",
  "contest.col.points": "分值",
  "contest.countdown": "倒计时",

  "board.rank": "排名",
  "board.user": "选手",
  "board.solved": "通过",
  "board.penalty": "罚时",
  "board.score": "总分",
  "board.empty": "还没有提交。",
  "board.firstBlood": "一血",
  "board.pending": "待定",
  "board.cellSolved": "{label}：第 {time} 分钟通过，共 {attempts} 次提交",
  "board.cellFailed": "{label}：错误 {attempts} 次",
  "board.cellPending": "{label}：{pending} 个待定",
  "board.cellScore": "{label}：得分 {score}",
  "board.cellEmpty": "{label}：未尝试",

  "clar.ask": "提问",
  "clar.problem": "相关题目",
  "clar.general": "一般问题",
  "clar.question": "问题",
  "clar.send": "发送",
  "clar.answer": "回答",
  "clar.unanswered": "尚未回答",
  "clar.sent": "你的问题已发送。",

  "admin.title": "管理",
  "admin.problems": "题目",
  "admin.contests": "比赛",
  "admin.users": "用户",
  "admin.judges": "评测机",
  "admin.rejudge": "重测",
  "admin.saved": "已保存。",
  "admin.slug": "标识（slug）",
  "admin.titleField": "标题",
  "admin.statement": "题面（Markdown，$公式$）",
  "admin.preview": "预览",
  "admin.timeLimit": "时间限制（毫秒）",
  "admin.memoryLimit": "内存限制（KB）",
  "admin.checker": "比较器",
  "admin.tolerance": "浮点误差",
  "admin.mode": "计分方式",
  "admin.visibility": "可见性",
  "admin.languages": "语言（逗号分隔的 id，留空表示全部）",
  "admin.editExisting": "编辑已有题目（slug）",
  "admin.load": "载入",
  "admin.testdata": "测试数据（zip）",
  "admin.upload": "上传",
  "admin.uploaded": "已上传：{cases} 个测试点，哈希 {hash}。",
  "admin.description": "说明",
  "admin.rule": "赛制",
  "admin.startAt": "开始时间",
  "admin.endAt": "结束时间",
  "admin.freeze": "封榜（结束前分钟数）",
  "admin.contestProblems": "题目（每行：编号 slug 分值）",
  "admin.csv": "CSV 文件（username,display_name,password,email,role）",
  "admin.import": "导入",
  "admin.imported": "已导入：新建 {created} 个，更新 {updated} 个。",
  "admin.generatedPasswords": "已为新用户生成密码。密码只显示这一次，请在离开本页前复制保存。",
  "admin.importErrors": "出错的行",
  "admin.judgeName": "评测机名称",
  "admin.issueToken": "生成令牌",
  "admin.tokenOnce": "{name} 的令牌（只显示这一次，请立即复制）：",
  "admin.revoke": "吊销",
  "admin.confirmRevoke": "吊销评测机 {name}？它将被断开连接。",
  "admin.judge.name": "评测机",
  "admin.judge.state": "状态",
  "admin.judge.load": "负载",
  "admin.judge.running": "运行中",
  "admin.judge.memory": "内存",
  "admin.judge.seen": "最后在线",
  "admin.judge.online": "在线",
  "admin.judge.offline": "离线",
  "admin.judge.refresh": "负载每 {seconds} 秒刷新一次。",
  "admin.rejudgeWhat": "重测范围",
  "admin.rejudgeSubmission": "提交编号",
  "admin.rejudgeProblem": "题目 slug",
  "admin.rejudgeContest": "比赛 slug",
  "admin.rejudgeGo": "重测",
  "admin.rejudged": "已将 {n} 个提交加入重测队列。",
  "admin.denied": "只有管理员和出题人可以打开此页面。",
};

export type Lang = "en" | "zh";
export const LANGS: readonly { id: Lang; label: string; htmlLang: string }[] = [
  { id: "en", label: "English", htmlLang: "en" },
  { id: "zh", label: "简体中文", htmlLang: "zh-CN" },
];
export const TABLES: Record<Lang, Table> = { en, zh };

const STORAGE_KEY = "verdict.lang";

/** format fills {name} placeholders; unknown ones are left as they are. */
export function format(s: string, params?: Record<string, string | number>): string {
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));
}

/** translate looks a key up in one language's table (English as fallback). */
export function translate(lang: Lang, key: Key, params?: Record<string, string | number>): string {
  return format(TABLES[lang][key] ?? en[key] ?? key, params);
}

/** detectLang: the saved choice, else the browser's preference. */
export function detectLang(saved: string | null, navigatorLangs: readonly string[]): Lang {
  if (saved === "en" || saved === "zh") return saved;
  for (const l of navigatorLangs) {
    const low = l.toLowerCase();
    if (low.startsWith("zh")) return "zh";
    if (low.startsWith("en")) return "en";
  }
  return "en";
}

// ---- the app's current language -------------------------------------------

let current: Lang = "en";
const listeners = new Set<(l: Lang) => void>();

export function initLang(): Lang {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(STORAGE_KEY);
  } catch {
    /* storage disabled */
  }
  current = detectLang(saved, typeof navigator !== "undefined" ? navigator.languages ?? [navigator.language] : []);
  applyHtmlLang();
  return current;
}

function applyHtmlLang(): void {
  if (typeof document !== "undefined") {
    document.documentElement.lang = LANGS.find((l) => l.id === current)?.htmlLang ?? "en";
  }
}

export function getLang(): Lang {
  return current;
}

export function setLang(l: Lang): void {
  current = l;
  try {
    localStorage.setItem(STORAGE_KEY, l);
  } catch {
    /* storage disabled: the choice lasts for this page */
  }
  applyHtmlLang();
  for (const fn of listeners) fn(l);
}

export function onLang(fn: (l: Lang) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** t translates in the current language. */
export function t(key: Key, params?: Record<string, string | number>): string {
  return translate(current, key, params);
}

/** verdictLabel names a verdict or status code in the current language. */
export function verdictLabel(v: string): string {
  const key = `verdict.${v}` as Key;
  return key in en ? t(key) : v;
}
