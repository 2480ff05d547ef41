/**
 * copse for pi: the /worktree command and the git_worktree_* tools.
 *
 *   /worktree                 hand the terminal to `copse pick`, move pi to the chosen worktree
 *   /worktree <branch|path>   move pi to that worktree (completion from `copse list`)
 *   /worktree -               back to the worktree pi came from, in the session it had there
 *
 * pi's tools and footer follow the session's directory, so moving pi is a session switch:
 * the first time pi enters a worktree the person chooses a new session (the default) or to
 * carry the conversation over; coming back restores the session last active there. That
 * history lives on globalThis because pi loads a fresh copy of this file for every session;
 * it is gone when pi exits.
 *
 * Every git operation goes through copse (`copse tool`, one JSON request, one JSON reply), the
 * same safety core as copse's command line. Requests copse wants a human to confirm are shown
 * in a pi selector whose first choice is No, and re-sent with --approved and the state token copse gave, so
 * nothing runs if the worktrees changed in between. The copse binary is $COPSE_BIN, or
 * `copse` on PATH.
 *
 * Install: copse init pi --install   (writes this file into pi's extensions folder)
 */
import { execFile, execFileSync, spawn, spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import * as path from "node:path";
import {
	type ExtensionAPI,
	type ExtensionCommandContext,
	type ExtensionContext,
	getAgentDir,
	SessionManager,
} from "@mariozechner/pi-coding-agent";
import type { AutocompleteItem } from "@mariozechner/pi-tui";
import { type TSchema, Type } from "typebox";

const INSTALL_HINT =
	"install copse (go install github.com/copse-dev/copse/cmd/copse@latest) or set COPSE_BIN to its path, then /reload";
const UPDATE_HINT = "update copse (go install github.com/copse-dev/copse/cmd/copse@latest), then restart pi";

/** The operations this extension cannot work without. */
const REQUIRED_OPERATIONS = ["list", "create", "switch", "remove"];

/** Tools offered to the model, each registered only when copse's schema has its operation. */
const TOOLS: { op: string; name: string; label: string }[] = [
	{ op: "list", name: "git_worktree_list", label: "List worktrees" },
	{ op: "create", name: "git_worktree_create", label: "Create worktree" },
	{ op: "remove", name: "git_worktree_remove", label: "Remove worktree" },
	{ op: "switch", name: "git_worktree_switch", label: "Switch worktree" },
	{ op: "claim", name: "git_worktree_claim", label: "Claim worktree" },
	{ op: "release", name: "git_worktree_release", label: "Release worktree" },
	{ op: "land", name: "git_worktree_land", label: "Land worktree" },
	{ op: "land_status", name: "git_worktree_land_status", label: "Land status" },
	{ op: "prune", name: "git_worktree_prune", label: "Prune worktrees" },
];

// ---------------------------------------------------------------------------------------
// State that outlives pi's per-session reload of this file.

interface Variant {
	description?: string;
	properties?: Record<string, unknown>;
	required?: string[];
	oneOf?: { required?: string[] }[];
	"x-approval"?: string;
}

type Probe =
	| { ok: true; bin: string; version: string; operations: Map<string, Variant> }
	| { ok: false; bin: string; problem: string };

interface State {
	/** worktree path → the session file last active there */
	lastSession: Map<string, string>;
	/** the worktree pi left most recently, for /worktree - */
	previous?: string;
	/** worktree path → the pi session id this pi claimed it for */
	claims: Map<string, string>;
	/** copse binary → what it supports */
	probes: Map<string, Probe>;
	/** completion cache */
	completion?: { cwd: string; at: number; items: AutocompleteItem[] };
}

const STATE_KEY = Symbol.for("copse.pi.worktree.state.v1");
const state: State = ((globalThis as Record<symbol, unknown>)[STATE_KEY] ??= {
	lastSession: new Map(),
	claims: new Map(),
	probes: new Map(),
}) as State;

// ---------------------------------------------------------------------------------------
// Running copse.

/** The most output read from one copse run; a host may lower it (omp: 2 MB, assets/omp/herdr.ts). */
let outputCap = 64 * 1024 * 1024;

function copseBin(): string {
	return process.env.COPSE_BIN || "copse";
}

interface Run {
	code: number | null;
	stdout: string;
	stderr: string;
	missing: boolean; // the binary could not be started
	error?: Error;
}

function run(
	args: string[],
	opts: { cwd?: string; input?: string; env?: Record<string, string>; signal?: AbortSignal },
): Promise<Run> {
	return new Promise((resolve) => {
		const child = execFile(
			copseBin(),
			args,
			{
				cwd: opts.cwd,
				env: { ...process.env, ...opts.env },
				maxBuffer: outputCap,
				signal: opts.signal,
				encoding: "utf8",
			},
			(error, stdout, stderr) => {
				const err = error as (NodeJS.ErrnoException & { code?: unknown }) | null;
				const missing = err?.code === "ENOENT" || err?.code === "EACCES";
				resolve({
					code: err ? (typeof err.code === "number" ? err.code : null) : 0,
					stdout: String(stdout),
					stderr: String(stderr),
					missing,
					error: err ?? undefined,
				});
			},
		);
		child.stdin?.on("error", () => {}); // copse may exit before reading (bad flags)
		child.stdin?.end(opts.input ?? "");
	});
}

/** What copse supports, checked once per binary and pi process. */
async function probe(force = false): Promise<Probe> {
	const bin = copseBin();
	const cached = state.probes.get(bin);
	if (cached && (cached.ok || !force)) return cached;
	const p = await probeUncached(bin);
	state.probes.set(bin, p);
	return p;
}

async function probeUncached(bin: string): Promise<Probe> {
	const v = await run(["version", "--json"], {});
	if (v.missing) {
		return { ok: false, bin, problem: `copse was not found (${bin}): ${INSTALL_HINT}` };
	}
	let version = "";
	try {
		version = String(JSON.parse(v.stdout).version ?? "");
	} catch {}
	if (v.code !== 0 || !version) {
		return {
			ok: false,
			bin,
			problem: `${bin} does not answer \`copse version --json\`: it is too old for /worktree (or not copse); ${UPDATE_HINT}`,
		};
	}
	const s = await run(["tool", "--schema"], {});
	const operations = new Map<string, Variant>();
	try {
		for (const variant of JSON.parse(s.stdout).oneOf ?? []) {
			const op = variant?.properties?.operation?.const;
			if (typeof op === "string") operations.set(op, variant);
		}
	} catch {}
	const lacking = REQUIRED_OPERATIONS.filter((op) => !operations.has(op));
	if (s.code !== 0 || lacking.length > 0) {
		const what = s.code !== 0 ? "has no `copse tool --schema`" : `has no ${lacking.join(", ")} operation`;
		return { ok: false, bin, problem: `copse ${version} (${bin}) is too old for /worktree: it ${what}; ${UPDATE_HINT}` };
	}
	return { ok: true, bin, version, operations };
}

interface CopseError {
	code: string;
	message: string;
	hint?: string;
	uncertain?: boolean;
	state_token?: string;
}

type Reply = { ok: true; result: any } | { ok: false; error: CopseError };

/** Sends one request to `copse tool` for the pi session `session` (COPSE_SESSION). */
async function toolRequest(
	request: Record<string, unknown>,
	opts: { cwd: string; session?: string; approved?: boolean; signal?: AbortSignal },
): Promise<Reply> {
	const args = opts.approved ? ["tool", "--approved"] : ["tool"];
	const env: Record<string, string> = opts.session ? { COPSE_SESSION: opts.session } : {};
	const r = await run(args, { cwd: opts.cwd, input: JSON.stringify(request), env, signal: opts.signal });
	if (r.missing) throw new Error(`copse was not found (${copseBin()}): ${INSTALL_HINT}`);
	if ((r.error as { code?: unknown } | undefined)?.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
		// A size limit, not a missing copse: copse was stopped there, so what it did is unknown.
		throw new Error(
			`copse's reply passed the ${outputCap / (1024 * 1024)} MB output limit and copse was stopped; check the worktrees with a list before going on`,
		);
	}
	const line = r.stdout.trim().split("\n").pop() ?? "";
	try {
		const reply = JSON.parse(line);
		if (typeof reply?.ok === "boolean") return reply as Reply;
	} catch {}
	if (opts.signal?.aborted) throw new Error("cancelled; check the worktrees with git_worktree_list before going on");
	throw new Error(`copse tool gave no reply (exit ${r.code}): ${(r.stderr || r.stdout).trim() || r.error?.message}`);
}

function describe(e: CopseError): string {
	let s = `copse: ${e.message} [${e.code}]`;
	if (e.hint) s += `\nhint: ${e.hint}`;
	if (e.uncertain) {
		s += "\nUNCERTAIN: the change may have happened. Check with git_worktree_list; never retry blindly.";
	}
	return s;
}

function sessionOf(ctx: ExtensionContext): string {
	return `pi:${ctx.sessionManager.getSessionId()}`;
}

const ANSWER_NO = "No, change nothing";
const ANSWER_YES = "Yes";

/**
 * Sends a request; when copse answers needs_approval, asks the person with copse's one-line
 * confirmation and, only on a yes, sends the same request again with --approved and the state
 * token copse showed. Throws on any refusal or failure (pi reports a thrown tool as failed).
 */
async function requestWithApproval(
	request: Record<string, unknown>,
	ctx: ExtensionContext,
	signal?: AbortSignal,
): Promise<any> {
	const opts = { cwd: ctx.cwd, session: sessionOf(ctx), signal };
	let reply = await toolRequest(request, opts);
	if (!reply.ok && reply.error.code === "needs_approval") {
		const question = reply.error.message;
		if (!ctx.hasUI) {
			throw new Error(`copse needs the person's approval and pi has no dialog here: ${question}. Nothing was changed.`);
		}
		// A select whose first choice is No: enter alone changes nothing, as in copse's own
		// prompts (pi's confirm has no default, and its first choice is Yes). Dismissed, or
		// aborted with the turn, it is a no too.
		const choice = await askPerson(ctx.cwd, () => ctx.ui.select(`copse asks: ${question}`, [ANSWER_NO, ANSWER_YES], { signal }));
		const yes = choice === ANSWER_YES;
		if (!yes) throw new Error(`The person said no to: ${question}. Nothing was changed.`);
		const token = reply.error.state_token;
		if (!token) {
			throw new Error(
				`copse gave no state token with its question, so the approval cannot be tied to what was shown; ${UPDATE_HINT}. Nothing was changed.`,
			);
		}
		reply = await toolRequest({ ...request, expected_state_token: token }, { ...opts, approved: true });
	}
	if (!reply.ok) throw new Error(describe(reply.error));
	return reply.result;
}

// ---------------------------------------------------------------------------------------
// Worktrees.

interface Worktree {
	id?: string;
	branch?: string;
	path: string;
	head?: string;
	main?: boolean;
	current?: boolean;
	detached?: boolean;
	claim?: { session: string; since: string } | null;
}

function label(wt: Worktree): string {
	if (wt.branch && !wt.detached) return wt.branch;
	return `(detached ${(wt.head ?? "").slice(0, 7)}) ${wt.path}`;
}

/**
 * A value typed or pasted by the person, for one line of a question: control characters and
 * bidirectional marks shown escaped (they could forge or reorder the lines around it), cut
 * to 80 characters with "…". copse checks the value itself; this only keeps the question honest.
 */
function oneLine(v: string): string {
	const shown = v.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) =>
		c.charCodeAt(0) <= 0xff ? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}` : `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
	);
	return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
}

/** What /worktree accepts for wt: its branch, or its path when it has none. */
function argumentFor(wt: Worktree): string {
	return wt.branch && !wt.detached ? wt.branch : wt.path;
}

function samePath(a: string, b: string): boolean {
	if (path.resolve(a) === path.resolve(b)) return true;
	try {
		return realpathSync(a) === realpathSync(b);
	} catch {
		return false;
	}
}

async function listWorktrees(cwd: string, session?: string): Promise<Worktree[]> {
	const reply = await toolRequest({ operation: "list" }, { cwd, session });
	if (!reply.ok) throw new Error(describe(reply.error));
	return reply.result.worktrees as Worktree[];
}

/** Finds the worktree a /worktree argument or tool parameters name. */
function findWorktree(
	worktrees: Worktree[],
	target: { path?: string; branch?: string; id?: string },
): Worktree | undefined {
	if (target.id) return worktrees.find((w) => w.id === target.id);
	if (target.path) return worktrees.find((w) => samePath(w.path, target.path!));
	if (target.branch) return worktrees.find((w) => !w.detached && w.branch === target.branch);
	return undefined;
}

// ---------------------------------------------------------------------------------------
// Moving pi.

/** The session folder for a worktree: pi's default unless this pi uses its own folder. */
function sessionDirFor(ctx: ExtensionContext): string | undefined {
	const current = ctx.sessionManager.getSessionDir();
	const cwd = ctx.sessionManager.getCwd();
	const byDefault = path.join(getAgentDir(), "sessions", `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
	return path.resolve(current) === path.resolve(byDefault) ? undefined : current;
}

const NEW_SESSION = "New session in this worktree";
const CARRY_SESSION = "Carry this conversation over";

/** Claims wt for this session; says so when copse refuses, and returns copse's reason then. */
async function claim(wt: Worktree, ctx: ExtensionContext): Promise<string | undefined> {
	const p = await probe();
	if (!p.ok || !p.operations.has("claim") || wt.main) return undefined;
	const sid = ctx.sessionManager.getSessionId();
	if (state.claims.get(wt.path) === sid) return undefined;
	const reply = await toolRequest({ operation: "claim", ...targetFields(p.operations.get("claim")!, wt) }, {
		cwd: wt.path,
		session: `pi:${sid}`,
	}).catch((e: Error) => ({ ok: false as const, error: { code: "failed", message: e.message } }));
	if (reply.ok) {
		state.claims.set(wt.path, sid);
		return undefined;
	}
	ctx.ui.notify(`Not claimed: ${reply.error.message}`, "warning");
	return reply.error.message;
}

async function release(worktreePath: string, ctx: ExtensionContext): Promise<void> {
	const sid = state.claims.get(worktreePath);
	const p = await probe();
	if (sid === undefined || !p.ok || !p.operations.has("release")) return;
	state.claims.delete(worktreePath);
	const reply = await toolRequest(
		{ operation: "release", ...targetFields(p.operations.get("release")!, { path: worktreePath }) },
		{ cwd: worktreePath, session: `pi:${sid}` },
	).catch((e: Error) => ({ ok: false as const, error: { code: "failed", message: e.message } }));
	if (!reply.ok) ctx.ui.notify(`Claim on ${worktreePath} not released: ${reply.error.message}`, "warning");
}

/** The fields that name wt in a request of this variant: its path, else its id, else its branch. */
function targetFields(v: Variant, wt: Worktree): Record<string, string> {
	const props = v.properties ?? {};
	if ("path" in props) return { path: wt.path };
	if ("id" in props && wt.id) return { id: wt.id };
	if ("branch" in props && wt.branch) return { branch: wt.branch };
	return { path: wt.path };
}

/**
 * How a host whose extensions cannot switch to a session in another directory moves
 * instead (omp: through its own /resume, see assets/omp/herdr.ts); from is the worktree
 * the host leaves. pi leaves it unset and switches sessions here.
 */
let hostMove: ((wt: Worktree, from: string, ctx: ExtensionCommandContext) => Promise<void>) | undefined;

/** Moves pi into wt: a session switch, with the first-entry choice and back-history. */
async function moveTo(wt: Worktree, worktrees: Worktree[], ctx: ExtensionCommandContext): Promise<void> {
	const here = worktrees.find((w) => w.current);
	if (here && samePath(here.path, wt.path)) {
		ctx.ui.notify(`Already in this worktree: ${label(wt)}`, "info");
		return;
	}
	if (hostMove) {
		await hostMove(wt, here?.path ?? ctx.cwd, ctx);
		return;
	}
	const from = here?.path ?? ctx.cwd;
	const currentFile = ctx.sessionManager.getSessionFile();
	let file = state.lastSession.get(wt.path);
	let how = "back in its last session";
	if (!file) {
		const choice = await ctx.ui.select(`First time in ${label(wt)} in this pi: which session?`, [
			NEW_SESSION,
			CARRY_SESSION,
		]);
		if (choice === undefined) {
			ctx.ui.notify(`Stayed in ${here ? label(here) : ctx.cwd}`, "info");
			return;
		}
		const dir = sessionDirFor(ctx);
		if (choice === CARRY_SESSION && currentFile && ctx.sessionManager.getEntries().length > 0) {
			try {
				file = SessionManager.forkFrom(currentFile, wt.path, dir).getSessionFile();
				how = "carrying this conversation";
			} catch {
				// Nothing written yet (pi saves a session after its first reply): start fresh.
			}
		}
		if (!file) {
			file = SessionManager.create(wt.path, dir).getSessionFile();
			how = choice === CARRY_SESSION ? "new session (nothing to carry yet)" : "new session";
		}
	}
	if (!file) {
		ctx.ui.notify("pi is running without session files (--no-session): /worktree cannot move it", "error");
		return;
	}
	if (currentFile) state.lastSession.set(from, currentFile);
	// pi opens a session file that does not exist yet in its own working directory.
	const before = process.cwd();
	process.chdir(wt.path);
	let moved: ExtensionCommandContext | undefined;
	const result = await ctx.switchSession(file, {
		withSession: async (next) => {
			moved = next; // ctx is stale from here on
			state.previous = from;
		},
	});
	if (result.cancelled || !moved) {
		process.chdir(before);
		ctx.ui.notify(`Switch cancelled: pi stayed in ${here ? label(here) : ctx.cwd}`, "warning");
		return;
	}
	await release(from, moved);
	await claim(wt, moved);
	// Last, so it says pi is ready (and after pi redrew the chat of the new session).
	moved.ui.notify(`pi is in ${label(wt)} now (${how}). /worktree - goes back.`, "info");
}

/** Hands the terminal to `copse pick`; returns the picked row, or undefined (with a notice). */
async function pick(ctx: ExtensionCommandContext): Promise<Worktree | undefined> {
	const r = await ctx.ui.custom<ReturnType<typeof spawnSync>>((tui, _theme, _keys, done) => {
		tui.stop();
		const res = spawnSync(copseBin(), ["pick", "--json"], {
			cwd: ctx.cwd,
			stdio: ["inherit", "pipe", "pipe"],
			encoding: "utf8",
		});
		tui.start();
		tui.requestRender(true);
		done(res);
		return { render: () => [], invalidate: () => {} };
	});
	if (r.error) {
		ctx.ui.notify(`copse pick could not run: ${r.error.message}; ${INSTALL_HINT}`, "error");
		return undefined;
	}
	let answer: any;
	try {
		answer = JSON.parse(String(r.stdout).trim());
	} catch {}
	if (r.status === 0 && answer?.path) return answer as Worktree;
	if (answer?.error?.code === "nothing_picked") {
		ctx.ui.notify("Nothing picked", "info");
		return undefined;
	}
	const e = answer?.error;
	ctx.ui.notify(e ? describe(e) : `copse pick failed (exit ${r.status}): ${String(r.stderr).trim()}`, "error");
	return undefined;
}

async function worktreeCommand(args: string, ctx: ExtensionCommandContext): Promise<void> {
	const p = await probe(true);
	if (!p.ok) {
		ctx.ui.notify(p.problem, "error");
		return;
	}
	if (!ctx.isIdle()) {
		ctx.ui.notify("pi is busy: wait for the answer (or press escape), then /worktree", "warning");
		return;
	}
	let worktrees: Worktree[];
	try {
		worktrees = await listWorktrees(ctx.cwd, sessionOf(ctx));
	} catch (e) {
		ctx.ui.notify((e as Error).message, "error");
		return;
	}
	let target: Worktree | undefined;
	if (args === "") {
		const picked = await pick(ctx);
		if (!picked) return;
		target = findWorktree(worktrees, { path: picked.path }) ?? picked;
	} else if (args === "-") {
		if (!state.previous) {
			ctx.ui.notify("No worktree to go back to yet: /worktree - returns where pi was before /worktree", "info");
			return;
		}
		target = findWorktree(worktrees, { path: state.previous });
		if (!target) {
			ctx.ui.notify(`The worktree pi came from is gone: ${state.previous}`, "error");
			return;
		}
	} else {
		if (/^(\.\.?|~)(\/|$)/.test(args)) {
			ctx.ui.notify(`Give the branch or the absolute path of a worktree, not "${args}"`, "error");
			return;
		}
		target = findWorktree(worktrees, args.startsWith("/") ? { path: args } : { branch: args });
		if (!target && !args.startsWith("/")) {
			target = await offerCreate(args, ctx);
			if (!target) return;
			worktrees = [...worktrees, target];
		} else if (!target) {
			ctx.ui.notify(`No worktree at ${args}. /worktree alone opens the picker.`, "error");
			return;
		}
	}
	await moveTo(target, worktrees, ctx);
}

const CREATE_NO = "No";

/**
 * /worktree BRANCH for a branch no worktree has: asks whether to create one (No first, as
 * every question here), then creates it through copse, which checks the name, says where
 * the new branch starts, and claims it for this pi session. undefined: nothing was created.
 */
async function offerCreate(branch: string, ctx: ExtensionCommandContext): Promise<Worktree | undefined> {
	const yes = `Create a worktree for ${oneLine(branch)}`;
	const choice = await ctx.ui.select(`No worktree has branch ${oneLine(branch)}. Create one?`, [CREATE_NO, yes]);
	if (choice !== yes) {
		ctx.ui.notify(`No worktree was created. /worktree alone opens the picker.`, "info");
		return undefined;
	}
	let result: any;
	try {
		result = await requestWithApproval({ operation: "create", branch }, ctx);
	} catch (e) {
		ctx.ui.notify((e as Error).message, "error");
		return undefined;
	}
	const wt = result?.worktree as Worktree | undefined;
	if (!wt?.path) {
		ctx.ui.notify(`copse created ${oneLine(branch)} but did not say where; run /worktree to pick it`, "error");
		return undefined;
	}
	const base = result?.base;
	const from = base?.ref ? ` from ${oneLine(String(base.ref))}${base.commit ? ` at ${String(base.commit).slice(0, 7)}` : ""}` : "";
	ctx.ui.notify(`Created ${label(wt)}${from} at ${wt.path}`, "info");
	return wt;
}

async function completions(prefix: string): Promise<AutocompleteItem[] | null> {
	const p = await probe();
	if (!p.ok) return null;
	const cwd = process.cwd();
	let items = state.completion?.cwd === cwd && Date.now() - state.completion.at < 3000 ? state.completion.items : undefined;
	if (!items) {
		try {
			const worktrees = await listWorktrees(cwd);
			items = worktrees.map((w) => ({
				value: argumentFor(w),
				label: label(w),
				description: w.current ? `${w.path} (here)` : w.path,
			}));
			state.completion = { cwd, at: Date.now(), items };
		} catch {
			return null;
		}
	}
	if (state.previous) items = [{ value: "-", label: "-", description: `back to ${state.previous}` }, ...items];
	const matching = items.filter((i) => i.value.startsWith(prefix) || i.label.includes(prefix));
	return matching.length > 0 ? matching : null;
}

// ---------------------------------------------------------------------------------------
// Tools for the model.

/** A tool's parameters: copse's request variant without the fields the host fills in. */
function parametersOf(v: Variant): TSchema {
	const properties = { ...(v.properties ?? {}) };
	delete properties.operation;
	delete properties.expected_state_token;
	const required = (v.required ?? []).filter((r) => r !== "operation");
	return Type.Unsafe<Record<string, unknown>>({
		type: "object",
		properties,
		required,
		additionalProperties: false,
	} as unknown as TSchema);
}

function descriptionOf(op: string, v: Variant): string {
	let d = `${v.description ?? op} (copse ${op}).`;
	const alternatives = (v.oneOf ?? []).map((o) => (o.required ?? []).join(" + ")).filter(Boolean);
	if (alternatives.length > 0) d += ` Give exactly one of: ${alternatives.join(", ")}.`;
	if (v["x-approval"] === "destructive") d += " pi asks the person to confirm before anything changes.";
	d += " Fails with copse's message and a hint when copse refuses; nothing changes then.";
	return d;
}

/** A line ahead of the reply for what the person must see at a glance: where a new branch starts. */
function summaryOf(result: any): string {
	const base = result?.base;
	if (result?.operation !== "create" || typeof base?.ref !== "string" || typeof base?.commit !== "string") return "";
	const at = base.commit.slice(0, 7);
	const from = base.ref === base.commit ? at : `${base.ref} at ${at}`;
	return `Created ${result.worktree?.branch ?? "the branch"} from ${from}.\n`;
}

function text(s: string) {
	return [{ type: "text" as const, text: s }];
}

function registerTools(pi: ExtensionAPI, p: Extract<Probe, { ok: true }>): void {
	for (const t of TOOLS) {
		const variant = p.operations.get(t.op);
		if (!variant) continue;
		if (t.op === "switch") {
			pi.registerTool({
				name: t.name,
				label: t.label,
				description:
					`Move pi to an existing worktree. A tool cannot move pi itself: this puts "/worktree <target>" in pi's editor ` +
					`for the person to run with enter (they choose a new session or to carry the conversation). ` +
					`Stop after calling it.` +
					((variant.oneOf ?? []).length ? " Give exactly one of: path, branch." : ""),
				parameters: parametersOf(variant),
				async execute(_id, params, signal, _onUpdate, ctx) {
					const reply = await toolRequest({ operation: "list" }, { cwd: ctx.cwd, session: sessionOf(ctx), signal });
					if (!reply.ok) throw new Error(describe(reply.error));
					const worktrees = reply.result.worktrees as Worktree[];
					const wt = findWorktree(worktrees, params as { path?: string; branch?: string; id?: string });
					if (!wt) throw new Error(`No worktree matches ${JSON.stringify(params)}; see git_worktree_list.`);
					if (wt.current) {
						return { content: text(`pi is already in this worktree: ${wt.path}`), details: { worktree: wt } };
					}
					const command = `/worktree ${argumentFor(wt)}`;
					if (!ctx.hasUI) throw new Error(`pi has no editor here; the person can run: ${command}`);
					ctx.ui.setEditorText(command);
					return {
						content: text(
							`Put "${command}" in pi's editor. The person moves pi by pressing enter (a tool cannot switch pi's session). Stop here and tell them.`,
						),
						details: { worktree: wt, command },
						terminate: true,
					};
				},
			});
			continue;
		}
		pi.registerTool({
			name: t.name,
			label: t.label,
			description: descriptionOf(t.op, variant),
			parameters: parametersOf(variant),
			async execute(_id, params, signal, _onUpdate, ctx) {
				const result = await requestWithApproval({ operation: t.op, ...(params as object) }, ctx, signal);
				return { content: text(summaryOf(result) + JSON.stringify(result)), details: result };
			},
		});
	}
}

// ---------------------------------------------------------------------------------------
// Telling copse what this agent is doing (copse list --status, the picker): first-hand,
// from the host's own events, through `copse hook HOST EVENT` (docs/agents.md).

/** The host copse's records name: pi, or omp (its adapter sets it). */
let stateHost = "pi";

/** The state each host event means; an event not listed reports nothing. */
const EVENT_STATES: Record<string, string> = {
	session_start: "idle",
	agent_start: "working",
	turn_start: "working",
	tool_call: "working",
	agent_end: "idle",
	session_shutdown: "gone",
};

/**
 * The payload of one report: the state, this process (copse checks it lives), and the
 * session's directory (pi's, which follows /worktree; the process's own stays put).
 */
function statePayload(state: string, event: string, cwd?: string): string {
	return JSON.stringify({ state, hook_event_name: event, pid: process.pid, cwd: cwd || process.cwd() });
}

/** The reports under way, one after the other: the last event's must be the last written. */
let reporting: Promise<void> = Promise.resolve();

/** Reports a state without waiting: a hook must never slow the agent, nor fail it. */
function reportState(state: string, event: string, cwd?: string): void {
	const payload = statePayload(state, event, cwd);
	reporting = reporting.then(
		() =>
			new Promise<void>((done) => {
				const timer = setTimeout(done, 2_000); // a copse that hangs holds no later report
				const finish = () => {
					clearTimeout(timer);
					done();
				};
				try {
					const child = spawn(copseBin(), ["hook", stateHost, event], { stdio: ["pipe", "ignore", "ignore"] });
					child.on("error", finish);
					child.on("exit", finish);
					child.stdin?.on("error", () => {});
					child.stdin?.end(payload);
				} catch {
					finish();
				}
			}),
	);
}

/** Reports the host's exit and waits for it: the host exits right after its shutdown handlers. */
function reportGone(event: string, cwd?: string): void {
	try {
		execFileSync(copseBin(), ["hook", stateHost, event], {
			input: statePayload("gone", event, cwd),
			stdio: ["pipe", "ignore", "ignore"],
			timeout: 2_000,
		});
	} catch {}
}

/** Asks the person through the host's dialog, reported as needing them while it is open. */
async function askPerson<T>(cwd: string, ask: () => Promise<T>): Promise<T> {
	reportState("blocked", "input", cwd);
	try {
		return await ask();
	} finally {
		reportState("working", "tool_call", cwd);
	}
}

function registerStateReports(pi: ExtensionAPI): void {
	for (const [event, state] of Object.entries(EVENT_STATES)) {
		if (event === "session_shutdown") continue;
		pi.on(event as "agent_start", async (_event, ctx) => reportState(state, event, ctx?.cwd));
	}
	// pi says "quit" when it exits (other reasons switch sessions); omp says no reason.
	pi.on("session_shutdown", async (event, ctx) => {
		const reason = (event as { reason?: string }).reason;
		if (reason === undefined || reason === "quit") reportGone("session_shutdown", ctx?.cwd);
	});
}

/** Releases every claim this pi holds, synchronously: the host exits right after its shutdown handlers. */
function releaseClaims(): void {
	const p = state.probes.get(copseBin());
	const variant = p?.ok ? p.operations.get("release") : undefined;
	for (const [worktreePath, sid] of state.claims) {
		if (!variant) break;
		try {
			execFileSync(copseBin(), ["tool"], {
				cwd: worktreePath,
				input: JSON.stringify({ operation: "release", ...targetFields(variant, { path: worktreePath }) }),
				env: { ...process.env, COPSE_SESSION: `pi:${sid}` },
				stdio: ["pipe", "ignore", "ignore"],
				timeout: 10_000,
			});
		} catch {}
	}
	state.claims.clear();
}

// ---------------------------------------------------------------------------------------

export default async function (pi: ExtensionAPI) {
	pi.registerCommand("worktree", {
		description: "Move pi to another worktree (copse): no argument opens the picker; - goes back",
		getArgumentCompletions: completions,
		handler: async (args, ctx) => worktreeCommand(args.trim(), ctx),
	});

	const p = await probe();
	if (p.ok) {
		registerTools(pi, p);
		registerStateReports(pi);
	} else {
		pi.on("session_start", async (event, ctx) => {
			if (event.reason === "startup") ctx.ui.notify(p.problem, "warning");
		});
	}

	// A claim this pi took is released when pi quits (leaving a worktree releases it too).
	pi.on("session_shutdown", async (event) => {
		if (event.reason === "quit") releaseClaims();
	});
}
