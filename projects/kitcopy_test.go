package projects

import (
	"bytes"
	"os"
	"testing"
)

// A sample's copy of the Python adapter kit is the kit itself: a fix to
// adapters/python/modex_adapter.py must reach the samples (cp it).
func TestSamplePythonKitIsTheKit(t *testing.T) {
	kit, err := os.ReadFile("../adapters/python/modex_adapter.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, copyPath := range []string{"chat/impl/modex_adapter.py"} {
		got, err := os.ReadFile(copyPath)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, kit) {
			t.Errorf("projects/%s differs from adapters/python/modex_adapter.py: cp adapters/python/modex_adapter.py projects/%s", copyPath, copyPath)
		}
	}
}
