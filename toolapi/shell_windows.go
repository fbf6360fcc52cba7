package toolapi

import (
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/windows"
)

// run_command runs cmd.exe /c on Windows: every Windows has it (and Wine, which CI
// runs the tests under), it starts in milliseconds, and /c is the nearest to sh -c
// (PowerShell is not everywhere the same, and takes about a second to start; a
// command that needs it calls it: powershell -NoProfile -Command "...").

// shellName is how run_command's description names the shell.
const shellName = "cmd.exe /c"

// shellArgv is how run_command runs command, as records show it: the system's own
// cmd.exe, never one found on the PATH or in the workspace.
func shellArgv(command string) []string {
	return []string{filepath.Join(systemDir(), "cmd.exe"), "/d", "/s", "/c", command}
}

// shellLine is the command line cmd.exe gets: /s makes it take what is between the
// first and the last quote as it is, so that quotes in command reach the commands it
// runs as the model wrote them (Go's quoting of argv is not cmd.exe's); /d skips the
// AutoRun commands of the registry.
func shellLine(command string) string {
	return `"` + filepath.Join(systemDir(), "cmd.exe") + `" /d /s /c "` + command + `"`
}

func setCmdLine(cmd *exec.Cmd, line string) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CmdLine = line
}

// systemDir is Windows's system folder (C:\Windows\System32).
func systemDir() string {
	if d, err := windows.GetSystemDirectory(); err == nil {
		return d
	}
	return `C:\Windows\System32`
}
