/**
 * Test-only omp extension: a fake model provider, so copse's end-to-end test drives Oh My Pi
 * offline. Run omp with `-e fake-model.ts --model fake/echo`.
 *
 * - A user message holding `call <tool> <json>` makes the model call <tool> with the JSON as
 *   arguments (omp puts a <system-reminder> block ahead of the text, so it is searched for).
 * - After a tool result the model answers `tool <name> done: <text>` (or `failed: <text>`),
 *   so the test reads what the tool said from omp's print-mode output.
 * - `schema <tool>` is answered `schema <tool>: <the parameters omp sent for it, as JSON>`.
 * - Anything else is answered `ok: <the text>`.
 * omp builds the message from the streamed events, so every part is streamed, not only `done`.
 */
import { createAssistantMessageEventStream } from "@oh-my-pi/pi-ai";
import type { ExtensionAPI } from "@oh-my-pi/pi-coding-agent";

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((c) => c?.type === "text")
		.map((c) => c.text)
		.join("");
}

let calls = 0;

function answer(model: any, context: any): any {
	const stream = createAssistantMessageEventStream();
	const output: any = {
		role: "assistant",
		content: [],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "stop",
		timestamp: Date.now(),
	};
	const messages = context.messages.filter((m: any) => m.role !== "developer");
	const last = messages[messages.length - 1];
	queueMicrotask(() => {
		stream.push({ type: "start", partial: output });
		const call = last?.role === "user" ? /(?:^|\n|>)call (\S+)(?: ([^\n]*))?\s*$/.exec(textOf(last.content).trim()) : null;
		if (call) {
			let args: Record<string, unknown> = {};
			try {
				args = call[2] ? JSON.parse(call[2]) : {};
			} catch {
				args = { unparsable: call[2] };
			}
			const toolCall = { type: "toolCall", id: `fake-call-${++calls}`, name: call[1], arguments: args };
			output.content.push(toolCall);
			output.stopReason = "toolUse";
			stream.push({ type: "toolcall_start", contentIndex: 0, partial: output });
			stream.push({ type: "toolcall_delta", contentIndex: 0, delta: JSON.stringify(args), partial: output });
			stream.push({ type: "toolcall_end", contentIndex: 0, toolCall, partial: output });
			stream.push({ type: "done", reason: "toolUse", message: output });
			stream.end();
			return;
		}
		let text: string;
		const schema = last?.role === "user" ? /(?:^|\n|>)schema (\S+)\s*$/.exec(textOf(last.content).trim()) : null;
		if (schema) {
			// The parameters omp sends the model for a tool, for tests of what the model is offered.
			const tool = (context.tools ?? []).find((t: any) => t.name === schema[1]);
			text = `schema ${schema[1]}: ${JSON.stringify(tool?.parameters ?? null)}`;
		} else if (last?.role === "toolResult") {
			text = `tool ${last.toolName} ${last.isError ? "failed" : "done"}: ${textOf(last.content)}`;
		} else {
			text = `ok: ${textOf(last?.content)}`;
		}
		output.content.push({ type: "text", text });
		stream.push({ type: "text_start", contentIndex: 0, partial: output });
		stream.push({ type: "text_delta", contentIndex: 0, delta: text, partial: output });
		stream.push({ type: "text_end", contentIndex: 0, content: text, partial: output });
		stream.push({ type: "done", reason: "stop", message: output });
		stream.end();
	});
	return stream;
}

export default function (pi: ExtensionAPI) {
	pi.registerProvider("fake", {
		baseUrl: "http://127.0.0.1:9",
		apiKey: "fake-key",
		api: "fake-api",
		models: [
			{
				id: "echo",
				name: "Fake echo model",
				reasoning: false,
				input: ["text"],
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
				contextWindow: 100000,
				maxTokens: 4096,
			},
		],
		streamSimple: answer,
	} as any);
}
