package demoserver

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// defaultUserCount is how many users the API knows when Config.Users is
// empty: user1..user1000. testdata/data/users.csv lists the same users, so
// a scenario drawing logins from that file works against a server started
// with or without --users.
const defaultUserCount = 1000

// User is one account of the API's user table (POST /api/login).
type User struct {
	Name     string
	Password string
}

// defaultUsers returns n generated users, user1..userN, each with the
// password "pw-" followed by its name.
func defaultUsers(n int) []User {
	users := make([]User, n)
	for i := range users {
		name := "user" + strconv.Itoa(i+1)
		users[i] = User{Name: name, Password: "pw-" + name}
	}
	return users
}

// loadUsers reads a user table from a CSV file whose header row names the
// columns; it needs "name" and "password" and ignores any others, so the
// data file a scenario draws from can carry extra columns. The whole file
// is checked: a ragged row, an empty name or a name given twice is an
// error naming its line.
func loadUsers(path string) ([]User, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	defer f.Close()
	users, err := readUsers(f)
	if err != nil {
		return nil, fmt.Errorf("users %s: %w", path, err)
	}
	return users, nil
}

// readUsers parses the CSV of loadUsers.
func readUsers(r io.Reader) ([]User, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("empty file, want a header row with name and password")
	}
	if err != nil {
		return nil, err
	}
	nameCol, passCol := -1, -1
	for i, h := range header {
		switch h {
		case "name":
			nameCol = i
		case "password":
			passCol = i
		}
	}
	if nameCol < 0 || passCol < 0 {
		return nil, fmt.Errorf("header %q lacks a name or password column", header)
	}
	var users []User
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err // csv errors name their line
		}
		users = append(users, User{Name: rec[nameCol], Password: rec[passCol]})
	}
	// Line numbers count the header as line 1, as the file's lines do.
	if err := checkUsers(users, func(i int) string { return "line " + strconv.Itoa(i+2) }); err != nil {
		return nil, err
	}
	return users, nil
}

// checkUsers refuses a table a login could not be judged against: no user,
// an empty name, or one name twice. where names the i-th user's place in
// the source, a file line or a slice index.
func checkUsers(users []User, where func(i int) string) error {
	if len(users) == 0 {
		return errors.New("no users")
	}
	seen := make(map[string]int, len(users))
	for i, u := range users {
		if u.Name == "" {
			return fmt.Errorf("%s: empty user name", where(i))
		}
		if first, dup := seen[u.Name]; dup {
			return fmt.Errorf("%s: user %q already at %s", where(i), u.Name, where(first))
		}
		seen[u.Name] = i
	}
	return nil
}
