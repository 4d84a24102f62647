package scenarios

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The files a scenario names besides itself (body_file, data files,
// certificates, proto and working directories) are relative to its
// directory and read once per parse.

// maxBodyFile bounds what body_file may load into memory, in bytes.
const maxBodyFile = 64 << 20

// readFile reads a file named relative to the scenario's directory, once
// however many matrix combinations use it. Only regular files are read, so
// a body_file of /dev/zero or a FIFO cannot hang or exhaust validation.
func (d *decoder) readFile(name string) ([]byte, string) {
	path := d.relPath(name)
	if res, ok := d.files[path]; ok {
		return res.data, res.err
	}
	data, err := readRegular(path)
	res := fileResult{data: data}
	if err != nil {
		res.data, res.err = nil, describeIOError(err)
	}
	d.files[path] = res
	return res.data, res.err
}

func readRegular(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBodyFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxBodyFile {
		return nil, fmt.Errorf("larger than %d MiB", maxBodyFile>>20)
	}
	return data, nil
}

// describeIOError drops the path from an *fs.PathError: the diagnostic
// shows the name as written in the scenario instead.
func describeIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func (d *decoder) relPath(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(d.dir, name)
}

type fileResult struct {
	data []byte
	err  string
}
