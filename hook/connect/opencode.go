package connect

import (
	"encoding/json"
	"strings"
)

// opencode runs no command hooks: its plugins (JavaScript modules in
// $XDG_CONFIG_HOME/opencode/plugins/, loaded for every project) may
// answer tool.execute.before, where a throw stops the call before it runs
// and the thrown message is what the model reads, and a change to
// output.args is what the tool runs (both measured with opencode-ai
// 1.18.33: internal/realclients). admit's plugin hands each call to admit
// hook opencode and lets it run only on admit's allow; no answer, a
// missing binary, a crash or a timeout refuse it.

// opencodePlugin is the whole plugin for the admit binary bin. Its one
// line `const ADMIT = [...]` names what it runs (parseOpencodePlugin
// reads it back).
const opencodeFirstLine = "// admit's gate for opencode: admit connect opencode writes this file and"

func opencodePlugin(bin string) string {
	admit, _ := json.Marshal([]string{bin, "hook", "opencode"})
	return opencodeFirstLine + `
// admit disconnect opencode removes it. Every tool call is handed to admit
// before it runs; anything but admit's allow refuses it.
import { spawn } from "node:child_process"

const ADMIT = ` + string(admit) + `
const TIMEOUT_MS = 600000

function askAdmit(event) {
  return new Promise((resolve) => {
    let out = "", err = "", done = false, timer
    const finish = (v) => { if (!done) { done = true; clearTimeout(timer); resolve(v) } }
    let child
    try {
      child = spawn(ADMIT[0], ADMIT.slice(1), { stdio: ["pipe", "pipe", "pipe"] })
    } catch (e) {
      return finish({ error: String(e) })
    }
    timer = setTimeout(() => { child.kill("SIGKILL"); finish({ error: "admit did not answer in time" }) }, TIMEOUT_MS)
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on("error", (e) => finish({ error: e.message }))
    child.on("close", (code) => finish({ code, out, err }))
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(event))
  })
}

export const Admit = async ({ directory, worktree }) => ({
  "tool.execute.before": async (input, output) => {
    const r = await askAdmit({
      hook_event_name: "tool.execute.before", tool_name: input.tool, tool_input: output.args ?? {},
      session_id: input.sessionID, tool_use_id: input.callID, cwd: directory || worktree,
    })
    let answer
    try { answer = JSON.parse(r.out) } catch {}
    if (r.code === 0 && answer && answer.decision === "allow") {
      if (answer.args && typeof answer.args === "object") {
        for (const k of Object.keys(output.args)) delete output.args[k]
        Object.assign(output.args, answer.args)
      }
      return
    }
    throw new Error((answer && answer.reason) || ` + "`" + `admit could not run (${r.error || r.err || "no answer"}), so the call is refused. Reinstall admit, or run admit connect opencode again.` + "`" + `)
  },
})
`
}

// parseOpencodePlugin reads what admit's plugin runs; false for a file
// that is not admit's plugin (its first line, and a const ADMIT that runs
// admit hook opencode). An older admit's plugin is admit's too, to be
// replaced: connect compares the whole text, not this.
func parseOpencodePlugin(src []byte, host string) (invocation, bool) {
	for _, l := range strings.Split(string(src), "\n") {
		rest, ok := strings.CutPrefix(l, "const ADMIT = ")
		if !ok {
			continue
		}
		var argv []string
		if json.Unmarshal([]byte(rest), &argv) != nil || len(argv) < 1 {
			return invocation{}, false
		}
		inv := invocation{program: argv[0], literal: true, args: argv[1:]}
		return inv, inv.admitFor(host) && strings.HasPrefix(string(src), opencodeFirstLine)
	}
	return invocation{}, false
}

func opencodeHost() *Host {
	a := adapter("opencode")
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a,
		MissingBinary:       "refused: admit's plugin throws when admit cannot run or gives no allow, and opencode refuses the call with its message",
		MissingBinaryBlocks: true,
		files: []*fileSpec{{
			path: inDir(envDir("XDG_CONFIG_HOME", ".config"), "opencode", "plugins", "admit.js"), shape: shapeScript,
			events: []string{"tool.execute.before"},
			script: func(t target) string { return opencodePlugin(t.bin) },
			parse:  parseOpencodePlugin,
		}},
		detect: detectSpec{dirs: []func(string, Env) string{inDir(envDir("XDG_CONFIG_HOME", ".config"), "opencode")}, programs: []string{"opencode"}, extensions: []string{"sst-dev.opencode"}},
	}
}
