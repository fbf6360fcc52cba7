// A scripted model: a local HTTP server speaking OpenAI's chat completions API
// (streamed, as pi asks for it) that answers each request with the next recorded
// assistant message, and keeps every request so a test can read what pi fed back.
import { createServer } from "node:http";

/**
 * steps: assistant messages in order, each { toolCalls: [{name, args}] } or { text }.
 * Requests that carry no tools (a title, a summary) are answered with a short text and
 * do not use a step. Resolves to { url, requests, close() }.
 */
export function scriptedModel(steps) {
  const requests = [];
  let next = 0;
  let calls = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      if (!req.url.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body);
      let step;
      if (!parsed.tools?.length) {
        step = { text: "ok" };
      } else {
        requests.push(parsed);
        step = steps[next++] ?? { text: "(the script has ended)" };
      }
      const chunk = (delta, finish) =>
        `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: parsed.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (step.toolCalls) {
        const tool_calls = step.toolCalls.map((c, index) => ({
          index,
          id: `call_${++calls}`,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        }));
        res.write(chunk({ role: "assistant", content: null, tool_calls }, null));
        res.write(chunk({}, "tool_calls"));
      } else {
        res.write(chunk({ role: "assistant", content: step.text }, null));
        res.write(chunk({}, "stop"));
      }
      res.write(`data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: parsed.model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/v1`,
        requests,
        close: () => new Promise((r) => server.close(r)),
      });
    });
  });
}

/** The text of the tool results at the end of a request's messages, in order. */
export function toolReplies(request) {
  const out = [];
  for (let i = request.messages.length - 1; i >= 0 && request.messages[i].role === "tool"; i--) {
    const c = request.messages[i].content;
    out.unshift(typeof c === "string" ? c : c.map((p) => p.text ?? "").join(""));
  }
  return out;
}
