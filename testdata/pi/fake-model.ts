/**
 * Test-only pi extension: a fake model provider, so copse's end-to-end test drives pi
 * offline. Run pi with `-e fake-model.ts --model fake/echo`.
 *
 * - A prompt `call <tool> <json>` makes the model call <tool> with the JSON as arguments.
 * - After a tool result the model answers `tool <name> done` (or `tool <name> failed`).
 * - Anything else is answered `ok: <prompt>`.
 */
import {
	type AssistantMessage,
	type AssistantMessageEventStream,
	type Context,
	createAssistantMessageEventStream,
	type Model,
} from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((c): c is { type: "text"; text: string } => c?.type === "text")
		.map((c) => c.text)
		.join("");
}

let calls = 0;

function answer(model: Model<any>, context: Context): AssistantMessageEventStream {
	const stream = createAssistantMessageEventStream();
	const output: AssistantMessage = {
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
	const last = context.messages[context.messages.length - 1];
	queueMicrotask(() => {
		stream.push({ type: "start", partial: output });
		const call = last?.role === "user" ? /^call (\S+)(?: (.*))?$/s.exec(textOf(last.content).trim()) : null;
		if (call) {
			let args: Record<string, unknown> = {};
			try {
				args = call[2] ? JSON.parse(call[2]) : {};
			} catch {
				args = { unparsable: call[2] };
			}
			const toolCall = { type: "toolCall" as const, id: `fake-call-${++calls}`, name: call[1], arguments: args };
			output.content.push(toolCall);
			output.stopReason = "toolUse";
			stream.push({ type: "toolcall_start", contentIndex: 0, partial: output });
			stream.push({ type: "toolcall_end", contentIndex: 0, toolCall, partial: output });
			stream.push({ type: "done", reason: "toolUse", message: output });
			stream.end();
			return;
		}
		let text: string;
		if (last?.role === "toolResult") {
			text = `tool ${last.toolName} ${last.isError ? "failed" : "done"}`;
		} else {
			text = `ok: ${last ? textOf(last.content) : ""}`;
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
	});
}
