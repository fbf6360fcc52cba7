package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMCPThroughTheTypeScriptSDK runs testdata/mcp-ts/tools.test.mjs: vfsctl serve
// driven by the TypeScript SDK's MCP client, the one most runtimes are built on, over
// every tool of issue 37's sets and a refusal of each, checked on disk. It needs node
// and the SDK, which this test does not install: VFSCTL_MCP_SDK names a folder holding
// node_modules/@modelcontextprotocol/sdk (testdata/mcp-ts/test.sh installs it there,
// and .ci/run runs that script). Without it the test is skipped; with it, a missing
// node fails it.
func TestMCPThroughTheTypeScriptSDK(t *testing.T) {
	sdkDir := os.Getenv("VFSCTL_MCP_SDK")
	if sdkDir == "" {
		t.Skip("VFSCTL_MCP_SDK is not set: set it to a folder holding node_modules/@modelcontextprotocol/sdk (bash cmd/vfsctl/testdata/mcp-ts/test.sh installs it) to run the MCP tests through the TypeScript SDK")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("VFSCTL_MCP_SDK is set but node is not on PATH: %v", err)
	}
	script, err := filepath.Abs("testdata/mcp-ts/tools.test.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, buildVfsctl(t))
	cmd.Env = append(os.Environ(), "VFSCTL_MCP_SDK="+sdkDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}
