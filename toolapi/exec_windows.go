package toolapi

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procGroup is the job object a command runs in on Windows, which has no process
// groups: every process the command starts joins the job, and killing the job (or
// closing its last handle: JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, should vfsctl die)
// ends them all. The command starts suspended, and runs only once it is in the job,
// so no child it starts escapes.
type procGroup struct{ job windows.Handle }

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

func startGroup(cmd *exec.Cmd) (procGroup, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return procGroup{}, fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return procGroup{}, fmt.Errorf("job object: %w", err)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED // a command line set stays
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return procGroup{}, err
	}
	g := procGroup{job: job}
	if err := g.enter(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		g.close()
		return procGroup{}, err
	}
	return g, nil
}

// enter puts the suspended process pid in the job, then lets it run.
func (g procGroup) enter(pid int) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("open the command's process: %w", err)
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(g.job, p); err != nil {
		return fmt.Errorf("put the command in a job object: %w", err)
	}
	if st, _, _ := ntResumeProcess.Call(uintptr(p)); st != 0 {
		return fmt.Errorf("resume the command: %w", windows.NTStatus(st))
	}
	return nil
}

// signal: a console's Ctrl+C reaches every process attached to it, the command's
// included, and Windows has no other signals to send on.
func (g procGroup) signal(os.Signal) {}

func (g procGroup) kill()  { windows.TerminateJobObject(g.job, 1) }
func (g procGroup) close() { windows.CloseHandle(g.job) }

// exitOf is the exit status and how the command ended; killed says why it was killed
// (Windows reports no signal: a process ended by the job has the status it was
// given), "" if it was not.
func exitOf(ee *exec.ExitError, killed string) (int, string) {
	if killed != "" {
		return ExitTimeout, killed
	}
	return ee.ExitCode(), fmt.Sprintf("exit %d", ee.ExitCode())
}
