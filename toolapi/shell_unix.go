//go:build !windows

package toolapi

import "os/exec"

// shellName is how run_command's description names the shell.
const shellName = "/bin/sh -c"

// shellArgv is how run_command runs command.
func shellArgv(command string) []string { return []string{"/bin/sh", "-c", command} }

// shellLine: the argv is the command line on Unix.
func shellLine(string) string { return "" }

// setCmdLine: never called on Unix (shellLine is "").
func setCmdLine(*exec.Cmd, string) {}
