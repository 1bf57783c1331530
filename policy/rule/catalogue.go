package rule

// catalogue is every rule in decision order: by Stage, and within a stage
// in the order its checks run (where the checks of one stage are
// alternatives, as the command policy's are, in the order the docs name
// them). Meanings say what happened; remedies say what to do instead, to a
// model first and then to the person who owns the policy.
var catalogue = []Info{
	{
		Rule: CapsOff, Stage: StageMode, Outcome: OutcomeAllow,
		Meaning: "The gate is off: the call was allowed without any check, and nothing was taped.",
		Remedy:  "Nothing to do for the call; to have calls checked again, set the mode to warn or enforce (admit.mode, admit/setMode).",
	},
	{
		Rule: ManagedInvalid, Stage: StagePolicyFile, Outcome: OutcomeDeny,
		Meaning: "The organisation's managed policy (managed.json in the system folder, docs/teams.md) cannot be used: it does not parse, or the person could have written it (not owned by an administrator, or writable by others, or in a folder that is), so every call is refused until an administrator fixes it.",
		Remedy:  "Nothing an agent can do: ask the person to have an administrator fix or remove the managed file the reason names (owned by root, mode 0644, in folders only root can write).",
	},
	{
		Rule: PolicyInvalid, Stage: StagePolicyFile, Outcome: OutcomeDeny,
		Meaning: "The workspace policy file (.admit/policy.json) cannot be used, so the gate stays closed: every call of the editor's session is refused until the file is fixed.",
		Remedy:  "Ask the person to fix the file at the line and field the reason names (unknown fields are errors) or to remove it; an agent may not write under .admit/.",
	},
	{
		Rule: RulesInvalid, Stage: StagePolicyFile, Outcome: OutcomeDeny,
		Meaning: "The person's rules file cannot be used (its path and the problem are in the reason), so the gate judges command lines as if no rule of the person's allowed them, and refuses them.",
		Remedy:  "Ask the person to fix the rules file the reason names (admit: Rules in the editor); an agent cannot write it.",
	},
	{
		Rule: OutsideWorkspace, Stage: StageRequest, Also: []Stage{StageCommand, StageMutators}, Outcome: OutcomeDeny,
		Meaning: "A folder the call runs in, or a path it reads, lists or names, resolves outside the workspace roots (symlinks are resolved first).",
		Remedy:  "Work on paths inside the workspace folders, relative to the workspace and without \"..\" or \"~\"; to reach another folder, ask the person to open it as a workspace folder.",
	},
	{
		Rule: NoTool, Stage: StageRequest, Outcome: OutcomeDeny,
		Meaning: "The call names no tool.",
		Remedy:  "Send the call again with the name of the tool it is for.",
	},
	{
		Rule: RequestTooLarge, Stage: StageRequest, Also: []Stage{StageArguments}, Outcome: OutcomeDeny,
		Meaning: "The call is over the size bound (a command line over ADMIT_MAX_REQUEST_CHARS characters, arguments over 256 times that), or its arguments nest deeper than 16 levels.",
		Remedy:  "Split the work into smaller calls with flatter arguments; the person can raise ADMIT_MAX_REQUEST_CHARS or the session's bounds.maxRequestChars.",
	},
	{
		Rule: NotInAllowList, Stage: StageAllowList, Outcome: OutcomeDeny,
		Meaning: "The session's capability set does not grant the tool; its arguments were not read.",
		Remedy:  "Use a tool the session grants (the reason lists them); the person can add the tool to \"allow\" in .admit/policy.json or the session's capability set.",
	},
	{
		Rule: BudgetExhausted, Stage: StageBudget, Outcome: OutcomeDeny,
		Meaning: "The session's steps or time are spent, or it retried the same refused call more than maxRetries times with nothing else in between.",
		Remedy:  "Stop, and report what is done and what is left; the person can raise bounds.maxSteps, bounds.timeoutMs or bounds.maxRetries (changing the mode or effects resets the retry count).",
	},
	{
		Rule: BadArguments, Stage: StageArguments, Outcome: OutcomeDeny,
		Meaning: "The arguments cannot be read without ambiguity: not a JSON object, a key given twice, invalid UTF-8, or a path argument that is not a string.",
		Remedy:  "Pass the arguments as one JSON object with every key once, each path argument as a string and each path list as a list of strings.",
	},
	{
		Rule: ShellSyntax, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command line uses shell syntax the shell profile does not run (the reason names each construct: an operator, a loop, an assignment, a redirection, a parse error).",
		Remedy:  "Write the command as plain words, one simple command or a pipeline or list of them, without the constructs the reason names; or send it as an argv.",
	},
	{
		Rule: DynamicWord, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "A word's value is only known when a shell runs it ($VAR, $(...), backquotes, a pattern that cannot be expanded where it runs), so the gate cannot judge it.",
		Remedy:  "Spell every word out literally: write the value instead of the variable or substitution, name the files instead of a pattern, or run the pattern on a line of its own.",
	},
	{
		Rule: EmptyCommand, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command line, or the argv, names no program to run (or the shell tool's args.command is not a string).",
		Remedy:  "Send the command line as a string in command (or args.command), starting with the program to run.",
	},
	{
		Rule: UnsupportedProgram, Stage: StageCommand, Outcome: OutcomeAsk,
		Meaning: "The program is in none of the command policy's tables (or is given as a path outside the workspace), so admit cannot judge what it does: a person decides (with nobody to ask, it is refused).",
		Remedy:  "Wait for the person's answer, or use a program the tables judge (docs/policy-programs.md); the person can allow the command's prefix with a rule of their own (always allow), which never lifts a refusal.",
	},
	{
		Rule: ForbiddenFlag, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The program is supported, but an option or script it was given could run a program, write a file or read beyond its operands (the reason names it).",
		Remedy:  "Drop the option or script part the reason names and use the program's plain reading form; the person can change the program's options under \"programs\".",
	},
	{
		Rule: GitSubcommand, Stage: StageCommand, Outcome: OutcomeAsk,
		Meaning: "The git subcommand (or this use of it) is one admit does not run unasked: it rewrites history or discards work (merge, rebase, cherry-pick, reset --hard, commit --amend, clean -f), opens an editor, or is not in the git table, so a person decides.",
		Remedy:  "Wait for the person's answer; without one, use the plain forms the reason names (git commit -m, git switch, git restore, git reset --soft), or ask the user to run git themselves.",
	},
	{
		Rule: ReadOnlyEffects, Stage: StageCommand, Also: []Stage{StageMutators}, Outcome: OutcomeDeny,
		Meaning: "The call changes files and the effect mode is read-only.",
		Remedy:  "Only read, or ask the person to switch the effect mode to workspace-write (admit.effects, ADMIT_EFFECTS).",
	},
	{
		Rule: NoTarget, Stage: StageCommand, Also: []Stage{StageMutators}, Outcome: OutcomeDeny,
		Meaning: "A write names no target the gate can check: a write program without an explicit path, a mutator without a path argument, a file tool asked to change more than one file.",
		Remedy:  "Name the one file to change explicitly: as the program's operand, or as the tool's path argument.",
	},
	{
		Rule: ProtectedPath, Stage: StageCommand, Also: []Stage{StageMutators},
		Meaning: "The write targets a protected path: under .admit/ it is refused; settings that make the editor, an agent or git run code (.git/, .vscode/, .github/workflows/, agent settings, ...) are asked of a person.",
		Remedy:  "Leave the gate's own files under .admit/ alone; for the other protected files, wait for the person's answer, or ask the user to make the change themselves.",
	},
	{
		Rule: UnobservedTarget, Stage: StageCommand, Also: []Stage{StageMutators}, Outcome: OutcomeDeny,
		Meaning: "The write changes a file this session has not read (for a new file: a folder it has not listed), or gives an expectHash the session never read.",
		Remedy:  "Read the file first (for a new file, list its folder or the nearest folder that exists), then retry the change, passing the hash admit/read returned.",
	},
	{
		Rule: StaleObservation, Stage: StageCommand, Also: []Stage{StageMutators}, Outcome: OutcomeDeny,
		Meaning: "The file changed, appeared or disappeared since the session read it, so a change based on that read could undo someone else's work.",
		Remedy:  "Read the file again, then redo the change on what it holds now.",
	},
	{
		Rule: RuleDenies, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "A deny rule of the person's, or of the repository's policy file, matches one of the line's simple commands.",
		Remedy:  "Do not run that command; do the task another way, or ask the user to run it themselves if they want it run.",
	},
	{
		Rule: PathInFlux, Stage: StageCommand, Also: []Stage{StageMutators}, Outcome: OutcomeDeny,
		Meaning: "The call reads, writes, lists or runs from a path that a background command of the same session may still be changing (a host's run-in-background call, setsid, nohup), so what it would find is not what the gate can judge now.",
		Remedy:  "Wait until the background command has ended (the reason says until when at the latest), or work on other paths meanwhile.",
	},
	{
		Rule: GitConfigExec, Stage: StageCommand, Outcome: OutcomeAsk,
		Meaning: "git would run in a repository whose configuration (or a file git reads as configuration) can run programs or read outside the workspace, so a person decides.",
		Remedy:  "Wait for the person's answer; without one, ask the user to run the git command themselves or to remove the settings the reason names.",
	},
	{
		Rule: RunsCode, Stage: StageCommand, Outcome: OutcomeAsk,
		Meaning: "The command runs code admit cannot read before it runs (a toolchain's build, test, run, lint or format, a package install and its scripts, an interpreter, a script or program of the workspace), so a person decides.",
		Remedy:  "Wait for the person's answer; the person can allow the command's prefix with a rule of their own (always allow), and admit run runs it confined.",
	},
	{
		Rule: Network, Stage: StageCommand, Outcome: OutcomeAsk,
		Meaning: "The command's work is talking to the network (git fetch, pull, push, clone; a toolchain's network commands), so a person decides.",
		Remedy:  "Wait for the person's answer; the person can allow the command's prefix with a rule of their own.",
	},
	{
		Rule: SecretRead, Stage: StageCommand, Also: []Stage{StageMutators}, Outcome: OutcomeAsk,
		Meaning: "The call reads a file inside the workspace whose name says it holds secrets (.env, a private key, *.pem, .npmrc, .netrc, cloud credentials; the patterns are a setting), or prints a repository's configuration whose URLs or headers hold a credential (git remote -v, git config --list, cat .git/config), so the person decides whether the model sees it.",
		Remedy:  "Wait for the person's answer; without one, work without the file's contents (read .env.example instead), or ask the user for the values the task needs.",
	},
	{
		Rule: Background, Stage: StageCommand, Outcome: OutcomeAsk,
		Meaning: "A command of the line runs in the background (cmd &) and goes on after the call returns, so a person decides; while it runs, the paths it may change are held (path-in-flux).",
		Remedy:  "Wait for the person's answer; or run the command in the foreground, or with the host's own run-in-background option.",
	},
	{
		Rule: OutsideRead, Stage: StageCommand, Outcome: OutcomeAsk,
		Meaning: "The command reads or lists a path outside the workspace, named as such on the line (not through a link of the workspace), that is neither a secret nor one of the person's own places, so a person decides.",
		Remedy:  "Wait for the person's answer; or work on files inside the workspace, or ask the person to open the other folder as a workspace folder.",
	},
	{
		Rule: Signal, Stage: StageCommand, Outcome: OutcomeAsk,
		Meaning: "kill signals the processes a probe of the same line finds (kill $(lsof -ti:3000)), or a job of the line itself, so a person decides.",
		Remedy:  "Wait for the person's answer; stop only what the session started.",
	},
	{
		Rule: HiddenCommand, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command runs what the line does not show, or changes what later words run: eval, sh -c, exec, builtin, trap, alias, hash, a script piped or fed into a shell or interpreter, a wrapper or an export that sets PATH, LD_PRELOAD or BASH_ENV.",
		Remedy:  "Send the commands themselves as the command line (the script of sh -c, the words of eval), without the wrapper or pipe the reason names.",
	},
	{
		Rule: NetworkToShell, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The line pipes what a network program fetches (curl, wget, ...) into a shell or an interpreter, which would run code nobody has read.",
		Remedy:  "Download the file into the workspace, read it, and ask the person to run it if it is wanted.",
	},
	{
		Rule: SecretEnv, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command prints the environment, or a variable whose name means a secret: a token, key, password or credential, a JWT, a session or cookie, a connection URL or proxy that may carry a user and password (GH_TOKEN, GH_PAT, MYSQL_PWD, AWS_SECRET_ACCESS_KEY, CI_JOB_JWT, DATABASE_URL, REDIS_URL, HTTPS_PROXY; not PWD, PATH, HOME), or one whose value in the call's environment is a credential by its shape (a URL with a password, a token prefix), which would put it in the model's context.",
		Remedy:  "Print only the variables the task needs, by a name that holds no secret (printenv PATH), or ask the user for the value.",
	},
	{
		Rule: EndlessInput, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command reads a device that never ends (/dev/zero, /dev/urandom, /dev/random, /dev/full) without the line bounding it to a small size first: it would run until stopped, fill the disk when copied into a file, or the model's context when printed.",
		Remedy:  "Bound the read where it starts: head -c 32 /dev/urandom | base64 (head -c at most 1 MiB).",
	},
	{
		Rule: PrivilegeChange, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command runs as another user or with more privileges (sudo, su, doas, pkexec, chroot), beyond what the workspace's gate can judge.",
		Remedy:  "Do the work as the session's own user, inside the workspace; ask the user to run privileged commands themselves.",
	},
	{
		Rule: ConfigWrite, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command changes configuration that is not the workspace's files, or the repository's git configuration, which decides what git runs: git config writes, git remote add, npm config set, pip config, go env -w, logins that store tokens.",
		Remedy:  "Pass the setting to the one command that needs it (an option, or env NAME=value), or ask the user to change the configuration themselves.",
	},
	{
		Rule: GlobalInstall, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command installs outside the workspace (npm install -g, pip install --user, cargo install, go install, uv tool install, rustup toolchain install), for every project of the person's.",
		Remedy:  "Install into the workspace instead (npm install, a virtual environment in the workspace, npx or uvx to run a tool once), or ask the user to install it globally.",
	},
	{
		Rule: Publishes, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command publishes or releases to a registry or a host (npm publish, cargo publish, twine upload, gh release, docker push, mvn deploy), which nobody should approve in passing.",
		Remedy:  "Stop before publishing and tell the user the release is ready; they publish it themselves.",
	},
	{
		Rule: DestroysExternal, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command destroys or overwrites what is not the workspace's: git push --force, --delete, --mirror or to a remote the repository does not have, docker system prune, kubectl delete, terraform destroy, a cloud resource deleted.",
		Remedy:  "Do not run it; push without force to a remote the repository has, and ask the user to do destructive operations themselves.",
	},
	{
		Rule: SecretExfiltration, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command, or the pipeline it is part of, sends or copies a file the secret patterns name (.env, a private key, credentials) off the machine: an upload (curl -d @.env, -T, -F), a copy to a host (scp, rsync), a socket fed by it (nc host < .env).",
		Remedy:  "Do not send secrets anywhere; ask the user to move them themselves. The person may allow one such command by name in their own rules file.",
	},
	{
		Rule: WorkspaceExfiltration, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command copies the workspace (a root, or a folder above one) to another host: rsync or scp of it, or an archive of it piped to an upload.",
		Remedy:  "Do not copy the workspace off the machine; ask the user to do it. The person may allow one such command by name in their own rules file.",
	},
	{
		Rule: Persistence, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command sets something to run later, outside the workspace: a crontab line, a systemd or launchd unit, a shell's start-up file, an editor extension, git's global hooks or configuration.",
		Remedy:  "Do not install anything that outlives the task; tell the user what to set up. The person may allow one such command by name in their own rules file.",
	},
	{
		Rule: ForeignSignal, Stage: StageCommand, Outcome: OutcomeDeny,
		Meaning: "The command signals processes the session did not start: pkill and killall by name, kill of a pid written on the line, a service stopped or restarted.",
		Remedy:  "Stop only what the session started: kill the pid a probe of the same line finds (kill $(lsof -ti:3000)), or ask the user. The person may allow one such command by name in their own rules file.",
	},
	{
		Rule: NoWriteRoot, Stage: StageMutators, Outcome: OutcomeDeny,
		Meaning: "The tool writes to the workspace, but the session's capability set grants no write root.",
		Remedy:  "Use a session that has writeRoots, or ask the person to open one; until then, only read.",
	},
	{
		Rule: OutsideWriteRoot, Stage: StageMutators, Outcome: OutcomeDeny,
		Meaning: "A write target resolves outside the session's write roots (symlinks are resolved first).",
		Remedy:  "Write only inside the write roots the reason lists; the person can add the folder to the session's writeRoots.",
	},
	{
		Rule: EditMismatch, Stage: StageMutators, Outcome: OutcomeDeny,
		Meaning: "admit/edit's oldText does not occur in the file as it was read, or occurs more than once without replaceAll.",
		Remedy:  "Read the file again and quote oldText exactly, with enough of the lines around it to occur once, or set replaceAll.",
	},
	{
		Rule: RuleAsks, Stage: StagePerson, Outcome: OutcomeAsk,
		Meaning: "An ask rule of the person's, or of the repository's policy file, matches one of the line's simple commands, so a person decides.",
		Remedy:  "Wait for the person's answer; with no one to ask it is refused: ask the user to run the command, or do the task another way.",
	},
	{
		Rule: NeedsHuman, Stage: StagePerson, Outcome: OutcomeAsk,
		Meaning: "The policy says the tool always needs a person's approval (needsHuman).",
		Remedy:  "Wait for the person's answer; with no one to ask it is refused: do the task without the tool, or ask the user to do that step.",
	},
	{
		Rule: UnexpectedEffect, Stage: StagePerson, Also: []Stage{StageResult}, Outcome: OutcomeAsk,
		Meaning: "An earlier run in the session changed files it was not admitted to change, so the session's next write waits for a person to acknowledge it; on a run's own record, the paths it changed outside its admitted targets.",
		Remedy:  "Tell the user which paths changed unexpectedly (the reason lists them) and let them check the workspace; the next change runs once a person approves it.",
	},
	{
		Rule: HumanApproved, Stage: StagePerson, Outcome: OutcomeAsk,
		Meaning: "A person allowed the call, now or earlier in the session (an allow-session grant).",
		Remedy:  "Nothing to do: the call may run.",
	},
	{
		Rule: HumanDenied, Stage: StagePerson, Outcome: OutcomeAsk,
		Meaning: "A person refused the call, or dismissed the prompt without allowing it.",
		Remedy:  "Do not retry it: ask the user what they want instead, or take another approach.",
	},
	{
		Rule: ApprovalTimeout, Stage: StagePerson, Outcome: OutcomeAsk,
		Meaning: "No one answered the approval request before its deadline.",
		Remedy:  "Do not retry it until the user is back; take an approach that needs no approval. The person can lengthen approvalTimeoutMs.",
	},
	{
		Rule: ApprovalCancelled, Stage: StagePerson, Outcome: OutcomeAsk,
		Meaning: "The question was withdrawn before anyone answered: the request was cancelled, the session was closed, or the gate shut down.",
		Remedy:  "If the call is still needed, send it again once the session and the gate are up.",
	},
	{
		Rule: NoApprover, Stage: StagePerson, Outcome: OutcomeAsk,
		Meaning: "The call needs a person and there is no one to ask: the gate is headless, or the connection to the editor failed.",
		Remedy:  "Do the task without the call, or ask the user to run it themselves (or to reconnect the editor).",
	},
	{
		Rule: Allowed, Stage: StageAllowed, Outcome: OutcomeAllow,
		Meaning: "Every check passed: the call is admitted by rule, with no person.",
		Remedy:  "Nothing to do: the call may run.",
	},
	{
		Rule: RuleAllows, Stage: StageAllowed, Outcome: OutcomeAllow,
		Meaning: "An allow rule of the person's answers every question the policy would have put to a person about the line (runs-code, network, unsupported-program, git-subcommand); it never lifts a refusal, nor a question about a protected path, a secret or git's configuration.",
		Remedy:  "Nothing to do: the call may run. The person sees and revokes their rules in the editor (admit: Rules).",
	},
	{
		Rule: TapeUnwritable, Stage: StageTape, Outcome: OutcomeDeny,
		Meaning: "In enforce mode the decision could not be written to the tape, so the call may not run (in warn mode the failure is reported in the state and the call goes on).",
		Remedy:  "Ask the person to make the tape writable: fix the tape path (admit.tape) or its folder's permissions, or free space; the state's tapeError says what failed.",
	},
	{
		Rule: TapeRepaired, Stage: StageTape,
		Meaning: "A record the tape writes itself: an unclean stop left a torn last line, which was cut off when the tape was opened; the reason says what was cut.",
		Remedy:  "Nothing to do for a call; admit tape --verify checks that the chain of records is whole.",
	},
	{
		Rule: TapeReanchored, Stage: StageTape,
		Meaning: "A record the tape writes itself: the tape did not match its anchored head (lines written but not anchored before a crash, a head that was missing or changed, records cut or put back), so the head now anchors the tape as it was found; the reason says what was found.",
		Remedy:  "Nothing to do for a call; if the reason names records cut or changed, someone altered the tape: admit tape --verify names the line.",
	},
	{
		Rule: RunResult, Stage: StageResult,
		Meaning: "The record of what an admitted admit/run did: its exit code, its effects, and whether reading them back verified them.",
		Remedy:  "When verified is false, read the detail and check the listed effects before relying on them.",
	},
	{
		Rule: WriteResult, Stage: StageResult,
		Meaning: "The record of what an admitted admit/edit or admit/write did: the hash written, and whether reading the file back found it.",
		Remedy:  "When verified is false, read the file again before the next change.",
	},
	{
		Rule: HookFailed, Stage: StageAdapter, Outcome: OutcomeDeny,
		Meaning: "An agent host's hook could not get a decision (a bad event, no gate, a gate error, a timeout), so it refused the call.",
		Remedy:  "Ask the person to check that admit is installed and that its gate runs; the reason says what went wrong. Until it is fixed, the hook refuses every call.",
	},
	{
		Rule: AdmitUnavailable, Stage: StageAdapter, Outcome: OutcomeDeny,
		Meaning: "The MCP gateway could not get a decision from the gate (or could not pass the call on unchanged), so it did not run the call.",
		Remedy:  "Ask the person to check that the gate behind admit mcp is running; the reason says what failed.",
	},
}
