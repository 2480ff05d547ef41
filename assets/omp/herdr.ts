// ---------------------------------------------------------------------------------------
// Oh My Pi (omp): everything above is the pi extension, loaded by omp through its pi
// compatibility layer (the @mariozechner/* and typebox imports). What omp adds, and pi has
// no API for, is below: the herdr_worktree tool, whose approval and concurrency omp
// resolves from the operation, and how /copse moves omp between worktrees (omp's sessions
// differ from pi's there). copse's generator (assets/omp.go) appends this file to the
// pi extension, so the two hosts share one source; `copse init omp` prints the result.

/**
 * herdr_worktree's closed union: the fields each operation accepts and those it needs. The
 * field descriptions and types come from copse's own schema (`copse tool --schema`), so this
 * list only picks which of copse's fields the tool exposes.
 */
const HERDR_OPERATIONS = {
	list: { fields: [], required: [] },
	create: { fields: ["branch", "base", "path", "label", "focus"], required: ["branch"] },
	open: { fields: ["path", "branch", "label", "focus"], required: [] },
	remove: { fields: ["workspace_id", "force"], required: ["workspace_id"] },
} as const satisfies Record<string, { fields: readonly string[]; required: readonly string[] }>;

type HerdrOperation = keyof typeof HERDR_OPERATIONS;

interface HerdrRequest {
	operation: HerdrOperation;
	fields: Record<string, string | boolean>;
}

/** Control characters and bidirectional marks: a value holding one could forge or reorder lines. */
const UNSAFE_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** What herdr_worktree refuses before anything runs. */
class HerdrRefusal extends Error {}

function refuse(why: string): never {
	throw new HerdrRefusal(`herdr_worktree refused the request before running anything: ${why}. Nothing was changed.`);
}

function shownValue(v: unknown): string {
	return oneLine(String(JSON.stringify(v)));
}

/**
 * The herdr_worktree variants, built from copse's request variants: each keeps only its
 * operation's fields, with copse's description and type, and accepts nothing else.
 * A string is why copse cannot serve the tool (too old).
 */
function herdrVariants(operations: Map<string, Variant>): Record<string, unknown>[] | string {
	const variants: Record<string, unknown>[] = [];
	for (const [op, spec] of Object.entries(HERDR_OPERATIONS)) {
		const v = operations.get(op);
		if (!v) return `copse has no ${op} operation`;
		const properties: Record<string, unknown> = {
			operation: { type: "string", const: op, description: v.description ?? op },
		};
		for (const f of spec.fields) {
			const p = v.properties?.[f];
			if (!p) return `copse's ${op} has no ${f} field`;
			properties[f] = p;
		}
		const variant: Record<string, unknown> = {
			type: "object",
			properties,
			required: ["operation", ...spec.required],
			additionalProperties: false,
		};
		if (op === "open") variant.oneOf = [{ required: ["path"] }, { required: ["branch"] }];
		variants.push(variant);
	}
	return variants;
}

/**
 * Parses a raw herdr_worktree request. omp validates the arguments against the schema, but
 * that is a hint: this runs on every call, from unknown, before anything else does.
 * Field types are the ones copse's schema gives (variants from herdrVariants).
 */
function parseHerdrRequest(raw: unknown, variants: Record<string, unknown>[]): HerdrRequest {
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) refuse("the arguments are not an object");
	const r = raw as Record<string, unknown>;
	const op = r.operation;
	if (typeof op !== "string" || !Object.hasOwn(HERDR_OPERATIONS, op)) {
		refuse(`unknown operation ${shownValue(op)} (one of: ${Object.keys(HERDR_OPERATIONS).join(", ")})`);
	}
	const operation = op as HerdrOperation;
	const spec = HERDR_OPERATIONS[operation];
	const allowed = spec.fields as readonly string[];
	const variant = variants.find((v) => (v.properties as any)?.operation?.const === operation);
	const fields: Record<string, string | boolean> = {};
	for (const [k, v] of Object.entries(r)) {
		if (k === "operation") continue;
		if (!allowed.includes(k)) {
			refuse(`${operation} has no field ${shownValue(k)} (it takes: ${allowed.join(", ") || "no fields"})`);
		}
		const type = (variant?.properties as any)?.[k]?.type;
		if (type === "boolean") {
			if (typeof v !== "boolean") refuse(`${k} must be true or false, not ${shownValue(v)}`);
			fields[k] = v;
			continue;
		}
		if (typeof v !== "string") refuse(`${k} must be a string, not ${shownValue(v)}`);
		if (UNSAFE_CHARACTER.test(v)) refuse(`${k} holds a control character or bidirectional mark: ${shownValue(v)}`);
		if (v === "" || v !== v.trim()) refuse(`${k} is empty or has spaces around it: ${shownValue(v)}`);
		if (v.startsWith("-")) refuse(`${k} starts with "-", so it could pass for an option: ${shownValue(v)}`);
		if (k === "path" && !path.isAbsolute(v)) refuse(`path must be absolute: ${shownValue(v)}`);
		fields[k] = v;
	}
	for (const f of spec.required) {
		if (!(f in fields)) refuse(`${operation} needs ${f}`);
	}
	if (operation === "open" && "path" in fields === "branch" in fields) {
		refuse("open takes exactly one of path and branch");
	}
	return { operation, fields };
}

/** remove always asks a person; so does a create that chose its own path (it writes there). */
function needsPrompt(req: HerdrRequest): boolean {
	return req.operation === "remove" || (req.operation === "create" && "path" in req.fields);
}

/**
 * The prompt's reason, from the raw arguments (the prompt is built before anything is
 * parsed): each value on its own line, escaped and cut, so no value can forge the lines
 * around it.
 */
function approvalReason(raw: unknown): string {
	const lines = ["copse runs this only after you confirm:"];
	if (typeof raw === "object" && raw !== null) {
		for (const [k, v] of Object.entries(raw)) lines.push(`${oneLine(k)}: ${shownValue(v)}`);
	}
	return lines.join("\n");
}

// State that outlives omp's reloads of this file, like the pi part's.
interface HerdrState {
	/** cwd + herdr binary → when the Herdr session was confirmed, or why it was not */
	sessions: Map<string, { at: number; problem?: string }>;
	/** request → copse's state token, asked for when omp built the prompt */
	tokens: Map<string, { at: number; cwd: string; token: Promise<string | undefined> }>;
}

const HERDR_STATE_KEY = Symbol.for("copse.omp.herdr.state.v1");
const herdrState: HerdrState = ((globalThis as Record<symbol, unknown>)[HERDR_STATE_KEY] ??= {
	sessions: new Map(),
	tokens: new Map(),
}) as HerdrState;

/** A Herdr session is a fact about this process, so it is kept in memory only, this long. */
const HERDR_SESSION_TTL_MS = 10 * 60 * 1000;
const HERDR_MIN_VERSION = [0, 8, 2];
const TOKEN_TTL_MS = 10 * 60 * 1000;

function herdrBin(): string {
	return process.env.HERDR_BIN_PATH || "herdr";
}

/**
 * Checks that omp runs in a Herdr pane, in a git work tree, with a Herdr new enough; throws
 * with why not. The answer is cached for ten minutes, never written anywhere.
 */
async function requireHerdrSession(cwd: string, signal?: AbortSignal): Promise<void> {
	if (process.env.HERDR_ENV !== "1") {
		throw new Error(
			"herdr_worktree works only inside a Herdr pane, and HERDR_ENV is not 1 here: it never reaches into a Herdr " +
				"session it is not part of. Nothing was run. Use the git_worktree_* tools instead.",
		);
	}
	const key = `${cwd}\u0000${herdrBin()}`;
	const cached = herdrState.sessions.get(key);
	if (cached && Date.now() - cached.at < HERDR_SESSION_TTL_MS) {
		if (cached.problem) throw new Error(cached.problem);
		return;
	}
	const problem = await herdrSessionProblem(cwd, signal);
	if (signal?.aborted) throw new Error("cancelled; nothing was run");
	herdrState.sessions.set(key, { at: Date.now(), problem });
	if (problem) throw new Error(problem);
}

async function herdrSessionProblem(cwd: string, signal?: AbortSignal): Promise<string | undefined> {
	const reply = await toolRequest({ operation: "list" }, { cwd, signal });
	if (!reply.ok) return `herdr_worktree needs a git work tree: ${describe(reply.error)}`;
	const out = await new Promise<{ stdout: string; error?: Error }>((resolve) => {
		execFile(herdrBin(), ["--version"], { encoding: "utf8", signal, timeout: 10_000, maxBuffer: 64 * 1024 }, (error, stdout) =>
			resolve({ stdout: String(stdout), error: error ?? undefined }),
		);
	});
	if (out.error) return `herdr --version failed (${herdrBin()}): ${out.error.message}`;
	const m = /(\d+)\.(\d+)\.(\d+)/.exec(out.stdout);
	if (!m) return `herdr --version printed no version (${herdrBin()}): ${oneLine(out.stdout.trim())}`;
	const have = [Number(m[1]), Number(m[2]), Number(m[3])];
	for (let i = 0; i < 3; i++) {
		if (have[i] > HERDR_MIN_VERSION[i]) break;
		if (have[i] < HERDR_MIN_VERSION[i]) {
			return `herdr ${m[0]} is too old for herdr_worktree (it needs ${HERDR_MIN_VERSION.join(".")} or newer): update Herdr`;
		}
	}
	return undefined;
}

/** The copse request for a parsed herdr_worktree request: focus is off unless asked for. */
function copseRequest(req: HerdrRequest): Record<string, unknown> {
	const request: Record<string, unknown> = { operation: req.operation, ...req.fields };
	if (req.operation === "create" || req.operation === "open") request.focus = req.fields.focus === true;
	return request;
}

function requestKey(req: Record<string, unknown>): string {
	return JSON.stringify(Object.keys(req).sort().map((k) => [k, req[k]]));
}

/**
 * Asks copse, while omp builds its prompt, for the state token of what the person is about
 * to approve (copse answers needs_approval and changes nothing). The approved call sends it
 * back, so worktrees that changed while the prompt was open are stale_state, not a surprise.
 */
function rememberToken(request: Record<string, unknown>): void {
	const key = requestKey(request);
	const now = Date.now();
	for (const [k, t] of herdrState.tokens) if (now - t.at > TOKEN_TTL_MS) herdrState.tokens.delete(k);
	const cwd = process.cwd();
	// omp resolves the approval more than once per call; the first answer is what was shown.
	if (herdrState.tokens.get(key)?.cwd === cwd) return;
	const token = toolRequest(request, { cwd }).then(
		(r) => (!r.ok && r.error.code === "needs_approval" ? r.error.state_token : undefined),
		() => undefined,
	);
	herdrState.tokens.set(key, { at: now, cwd, token });
}

async function takeToken(request: Record<string, unknown>, cwd: string): Promise<string | undefined> {
	const key = requestKey(request);
	const t = herdrState.tokens.get(key);
	herdrState.tokens.delete(key);
	if (!t || t.cwd !== cwd) return undefined;
	return t.token;
}

/** The field omp adds to every tool's schema for the model's intent, and strips before execute. */
const OMP_INTENT_FIELD = "i";

/**
 * The arguments exactly as the model sent them, by tool call id. omp repairs arguments
 * before execute (drops unknown fields, turns "true" into true, numbers into strings), so
 * params would hide what the model asked for; the assistant message, seen at message_end
 * (before omp runs its tool calls), carries the raw call.
 */
const rawCalls = new Map<string, unknown>();

function rememberRawCalls(message: unknown): void {
	const content = (message as { role?: string; content?: unknown })?.content;
	if ((message as { role?: string })?.role !== "assistant" || !Array.isArray(content)) return;
	for (const c of content) {
		if (c?.type === "toolCall" && c.name === "herdr_worktree" && typeof c.id === "string") rawCalls.set(c.id, c.arguments);
	}
}

function rawArguments(toolCallId: string, params: unknown): unknown {
	if (!rawCalls.has(toolCallId)) return params;
	const raw = rawCalls.get(toolCallId);
	rawCalls.delete(toolCallId);
	if (typeof raw === "object" && raw !== null && !Array.isArray(raw) && OMP_INTENT_FIELD in raw) {
		const { [OMP_INTENT_FIELD]: _intent, ...rest } = raw as Record<string, unknown>;
		return rest;
	}
	return raw;
}

function registerHerdrTool(pi: ExtensionAPI, variants: Record<string, unknown>[]): void {
	const parsed = (args: unknown): HerdrRequest | undefined => {
		try {
			return parseHerdrRequest(args, variants);
		} catch {
			return undefined;
		}
	};
	const tool = {
		name: "herdr_worktree",
		label: "Herdr worktree",
		description:
			"Git worktrees as Herdr workspaces, through copse: list; create (branch, base, path, label, focus); " +
			"open an existing worktree (exactly one of path, branch; label, focus); remove a workspace's worktree " +
			"(workspace_id, force). focus is false unless set. remove, and a create with its own path, ask the person " +
			"first. Works only inside a Herdr pane; fails with copse's message and a hint when copse refuses.",
		parameters: Type.Unsafe<Record<string, unknown>>({ anyOf: variants } as unknown as TSchema),
		loadMode: "essential",
		concurrency: (args: unknown) => (parsed(args)?.operation === "list" ? "shared" : "exclusive"),
		approval: (args: unknown) => {
			const req = parsed(args);
			// Unparsable arguments run nothing: execute refuses them first thing.
			if (!req) return "exec";
			if (req.operation === "list") return "read";
			if (!needsPrompt(req)) return "exec";
			rememberToken(copseRequest(req));
			// policy "prompt" is what omp honours in every approval mode, yolo included.
			return { tier: "exec", override: true, policy: "prompt", reason: approvalReason(args) };
		},
		async execute(id: string, params: unknown, signal: AbortSignal | undefined, _onUpdate: unknown, ctx: ExtensionContext) {
			const raw = rawArguments(id, params);
			const req = parseHerdrRequest(raw, variants);
			await requireHerdrSession(ctx.cwd, signal);
			const request = copseRequest(req);
			const opts = { cwd: ctx.cwd, session: sessionOf(ctx), signal };
			let reply: Reply;
			if (needsPrompt(req)) {
				// omp asked the person before calling this (a declined prompt never gets here).
				// omp's own prompt offers Approve first, so enter alone would approve; copse's
				// confirmations default to No, so it asks once more, No first, where omp has a UI.
				if (ctx.hasUI) {
					const choice = await askPerson(ctx.cwd, () =>
						ctx.ui.select(`copse asks: ${approvalReason(raw)}`, [ANSWER_NO, ANSWER_YES], { signal }),
					);
					if (choice !== ANSWER_YES) throw new Error("The person said no. Nothing was changed.");
				}
				const token = (await takeToken(request, ctx.cwd)) ?? (await firstToken(request, opts));
				reply = await toolRequest({ ...request, expected_state_token: token }, { ...opts, approved: true });
			} else {
				reply = await toolRequest(request, opts);
				if (!reply.ok && reply.error.code === "needs_approval") {
					throw new Error(
						`copse wants a person to confirm this and omp did not ask: ${reply.error.message}. Nothing was changed.`,
					);
				}
			}
			if (!reply.ok) throw new Error(describe(reply.error));
			return { content: text(summaryOf(reply.result) + JSON.stringify(reply.result)), details: reply.result };
		},
	};
	pi.registerTool(tool as unknown as Parameters<ExtensionAPI["registerTool"]>[0]);
}

/** The state token when none was taken with the prompt: copse's question, asked now. */
async function firstToken(
	request: Record<string, unknown>,
	opts: { cwd: string; session?: string; signal?: AbortSignal },
): Promise<string> {
	const reply = await toolRequest(request, opts);
	if (reply.ok) throw new Error("copse ran a request it should have asked about first; check with herdr_worktree list");
	if (reply.error.code !== "needs_approval" || !reply.error.state_token) throw new Error(describe(reply.error));
	return reply.error.state_token;
}

// ---------------------------------------------------------------------------------------
// Moving omp between worktrees.

import { existsSync } from "node:fs";

/**
 * omp's difference from pi here: an extension's switchSession refuses a session recorded in
 * another directory (omp keeps the session's directory itself), while omp's own /resume
 * switches to it and moves omp's directory along. So /copse does what the pi command does —
 * a new session or a copy of this conversation the first time omp enters a worktree, the
 * session last active there when it comes back — and hands the switch itself to /resume,
 * put in the editor for the person to run with enter. Arriving (omp's session_switch) is
 * where the claim moves and /copse - learns where omp came from.
 */
interface OmpMoves {
	/** the move /copse prepared and /resume has not made yet */
	pending?: { to: Worktree; from: string; file: string; how: string };
}

const OMP_MOVES_KEY = Symbol.for("copse.omp.moves.state.v1");
const ompMoves: OmpMoves = ((globalThis as Record<symbol, unknown>)[OMP_MOVES_KEY] ??= {}) as OmpMoves;

/** omp's SessionManager statics this uses (pi's types do not have them, or not async). */
interface OmpSessionManager {
	createEmptySessionFile(cwd: string): string;
	forkFrom(source: string, cwd: string): Promise<{ getSessionFile(): string | undefined }>;
}

async function ompMove(wt: Worktree, from: string, ctx: ExtensionCommandContext): Promise<void> {
	const sessions = SessionManager as unknown as OmpSessionManager;
	const currentFile = ctx.sessionManager.getSessionFile();
	let file = state.lastSession.get(wt.path);
	let how = "back in its last session";
	if (file && !existsSync(file)) file = undefined; // deleted since: as if omp had never been there
	if (!file) {
		const choice = await ctx.ui.select(`First time in ${label(wt)} in this omp: which session?`, [
			NEW_SESSION,
			CARRY_SESSION,
		]);
		if (choice === undefined) {
			ctx.ui.notify(`Stayed in ${from}`, "info");
			return;
		}
		if (choice === CARRY_SESSION && currentFile && existsSync(currentFile)) {
			try {
				file = (await sessions.forkFrom(currentFile, wt.path)).getSessionFile();
				how = "carrying this conversation";
			} catch {
				// Could not copy it: start fresh, and say so below.
			}
		}
		if (!file) {
			file = sessions.createEmptySessionFile(wt.path);
			how = choice === CARRY_SESSION ? "new session (nothing to carry yet)" : "new session";
		}
	}
	ompMoves.pending = { to: wt, from, file, how };
	// /resume takes a session id or the start of its file name; the file name is unique.
	ctx.ui.setEditorText(`/resume ${path.basename(file, ".jsonl")}`);
	ctx.ui.notify(`Press enter to move omp to ${label(wt)} (${how}) with omp's /resume.`, "info");
}

/** omp switched sessions: if it is the move /copse prepared, omp has arrived there. */
async function ompArrived(ctx: ExtensionContext, previousSessionFile: string | undefined): Promise<void> {
	const move = ompMoves.pending;
	const file = ctx.sessionManager.getSessionFile();
	if (!move || !file || !samePath(file, move.file)) return;
	ompMoves.pending = undefined;
	if (previousSessionFile) state.lastSession.set(move.from, previousSessionFile);
	state.lastSession.set(move.to.path, file);
	state.previous = move.from;
	await release(move.from, ctx);
	const notClaimed = await claim(move.to, ctx);
	// In the footer, not (only) a notice: omp redraws the chat of the session it switched to
	// after this returns, which wipes a notice.
	const claimNote = notClaimed ? `, not claimed: ${oneLine(notClaimed)}` : "";
	ctx.ui.setStatus("copse", `copse: ${oneLine(label(move.to))} (${move.how})${claimNote}, /copse - goes back`);
}

export default async function (pi: ExtensionAPI) {
	hostMove = ompMove;
	stateHost = "omp";
	// The seed's cap: 2 MB of output per command.
	outputCap = 2 * 1024 * 1024;
	await registerPiExtension(pi);
	pi.on("session_switch", async (event, ctx) =>
		ompArrived(ctx, (event as { previousSessionFile?: string }).previousSessionFile),
	);
	// omp sends session_shutdown only when it exits, and without pi's reason ("quit"), which
	// the pi part waits for: so the claims omp holds are released here.
	pi.on("session_shutdown", async () => releaseClaims());
	const p = await probe();
	if (!p.ok) return; // the pi part has told the person why
	const variants = herdrVariants(p.operations);
	if (typeof variants === "string") {
		const problem = `copse ${p.version} (${p.bin}) is too old for herdr_worktree: ${variants}; ${UPDATE_HINT}`;
		pi.on("session_start", async (event, ctx) => {
			if (event.reason === "startup") ctx.ui.notify(problem, "warning");
		});
		return;
	}
	pi.on("message_end", async (event) => rememberRawCalls((event as { message?: unknown }).message));
	registerHerdrTool(pi, variants);
}
