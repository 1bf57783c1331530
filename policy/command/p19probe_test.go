package command_test

import (
	"testing"

	"admit/internal/cases"
	"admit/policy/command"
)

func TestProbeP19(t *testing.T) {
	p := command.New(nil)
	w := cases.Build(t, nil)
	for _, l := range []string{"ruff check .", "gofmt -l .", "uname -a", "whoami", "which node", "node --version", "python3 --version", "git diff --stat",
		"git log --oneline -5", "ls -la", "find . -name '*.go' | head", "grep -rn foo .", "rg foo", "wc -l *.txt", "cat package.json | jq .scripts", "npm ls",
		"pip list", "go env GOPATH", "go list ./...", "tree -L 2", "du -sh .", "df -h", "ps aux | grep node", "env | grep NODE", "printenv PATH", "date", "sleep 2",
		"echo $PATH", "head -50 README.md", "sed -n 1,20p a.txt", "awk '{print $1}' a.txt", "sort a.txt | uniq -c", "diff a.txt b.txt", "git show HEAD --stat",
		"git branch -a", "git remote -v", "git stash list", "mkdir -p build", "touch x.txt", "cp a.txt b2.txt", "rm -rf node_modules", "chmod +x x.sh",
		"tsc --noEmit", "npx tsc --noEmit", "npx eslint .", "npx prettier --check .", "cargo check", "pytest -q", "python -m pytest", "docker ps",
		"curl -sI https://example.com", "git status --porcelain", "git add -A", "git commit -m 'fix: x'", "npm install", "npm run lint", "pnpm test",
		"go build ./...", "go vet ./...", "make", "ls ~", "cat ~/.gitconfig", "nproc", "free -m", "id", "hostname", "test -f a.txt && echo yes",
		"[ -d src ] && ls src", "cd src && ls", "pwd", "true", "xargs -n1 echo < a.txt", "git log -p -1 -- a.txt", "git blame a.txt", "file a.txt", "stat a.txt",
		"python3 -c 'print(1)'", "node -e 'console.log(1)'", "jq . package.json", "yq . x.yaml", "basename /a/b", "dirname /a/b", "realpath a.txt", "readlink -f a.txt",
		"time npm test", "timeout 60 npm test", "npm test 2>&1 | tail -20", "npm test > out.log 2>&1", "kill %1", "lsof -i :3000", "ss -ltnp", "git fetch", "git pull", "git push", "git checkout -b feat", "git switch main", "git rebase main", "git merge feat", "git reset --hard HEAD~1", "git clean -fd"} {
		c := cases.Case{Line: l, LineSet: true, Effects: "workspace-write"}
		d := evaluateUnder(t, p, w, &c, nil)
		out := "unasked"
		if d.Ask {
			out = "asked"
		} else if !d.Allowed {
			out = "REFUSED"
		}
		t.Logf("%-8s %-24s %s", out, d.Rule, l)
	}
}
