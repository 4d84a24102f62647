package demoserver

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/data/users.csv from DefaultUsers")

// usersCSV is the user file the flow examples draw logins from.
const usersCSV = "../../testdata/data/users.csv"

// TestUsersCSVIsTheDefaultTable keeps testdata/data/users.csv equal to the
// table a server has without --users, so a scenario using that file works
// against either. -update rewrites the file.
func TestUsersCSVIsTheDefaultTable(t *testing.T) {
	want := defaultUsers(defaultUserCount)
	if *update {
		var b bytes.Buffer
		b.WriteString("name,password\n")
		for _, u := range want {
			b.WriteString(u.Name + "," + u.Password + "\n")
		}
		if err := os.WriteFile(usersCSV, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := loadUsers(usersCSV)
	if err != nil {
		t.Fatalf("LoadUsers: %v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s differs from DefaultUsers(%d) (-want +got):\n%s", usersCSV, defaultUserCount, diff)
	}
}

func TestDefaultUsers(t *testing.T) {
	got := defaultUsers(3)
	want := []User{{"user1", "pw-user1"}, {"user2", "pw-user2"}, {"user3", "pw-user3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DefaultUsers(3) (-want +got):\n%s", diff)
	}
}

func TestLoadUsers(t *testing.T) {
	tests := []struct {
		name    string
		csv     string
		want    []User
		wantErr string // substring; empty = must succeed
	}{
		{name: "two users", csv: "name,password\nann,a1\nbob,b2\n", want: []User{{"ann", "a1"}, {"bob", "b2"}}},
		// A data file a scenario draws from may carry more columns, in any order.
		{name: "extra columns, any order", csv: "id,password,name\n7,a1,ann\n", want: []User{{"ann", "a1"}}},
		{name: "quoted comma", csv: "name,password\nann,\"a,1\"\n", want: []User{{"ann", "a,1"}}},
		{name: "empty file", csv: "", wantErr: "header row"},
		{name: "no name column", csv: "user,password\nann,a1\n", wantErr: "lacks a name or password"},
		{name: "no password column", csv: "name,pass\nann,a1\n", wantErr: "lacks a name or password"},
		{name: "header only", csv: "name,password\n", wantErr: "no users"},
		{name: "ragged row", csv: "name,password\nann,a1\nbob\n", wantErr: "line 3"},
		{name: "empty name", csv: "name,password\nann,a1\n,b2\n", wantErr: "line 3: empty user name"},
		{name: "duplicate name", csv: "name,password\nann,a1\nbob,b2\nann,a3\n", wantErr: `line 4: user "ann" already at line 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "users.csv")
			if err := os.WriteFile(path, []byte(tt.csv), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := loadUsers(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want one naming %s and mentioning %q", err, path, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := loadUsers(filepath.Join(t.TempDir(), "missing.csv")); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: err = %v, want one naming the file", err)
	}
}
