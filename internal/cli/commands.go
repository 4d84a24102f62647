package cli

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func validateCommand(args []string, env Env) error {
	vars, secretVars := varFlag{}, varFlag{}
	fs := newFlagSet("validate", env, "validate [--var K=V] [--secret-var K=V] SCENARIO...")
	registerVars(fs, vars, secretVars)
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(files) == 0 {
		fs.Usage()
		return withCode(ExitUsage, errors.New("validate: no scenario given"))
	}
	plans, err := loadPlans(files, vars, secretVars, env)
	if err != nil {
		return err
	}
	for _, p := range plans {
		fmt.Fprintf(env.Stdout, "ok  %s  (%s: %d cases, %d thresholds)\n",
			p.scenario.File, p.scenario.Name, len(p.scenario.Cases), len(p.scenario.Thresholds))
	}
	return nil
}

func schemaCommand(args []string, env Env) error {
	fs := newFlagSet("schema", env, "schema [--results]")
	ofResults := fs.Bool("results", false, "print the JSON Schema of results.json instead of the scenario's")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(rest) > 0 {
		return withCode(ExitUsage, fmt.Errorf("schema takes no arguments, got %q", rest))
	}
	schema := scenarios.Schema()
	if *ofResults {
		schema = results.ResultsSchema()
	}
	_, err = env.Stdout.Write(schema)
	return err
}

func serveCommand(ctx context.Context, args []string, env Env) error {
	var cfg demoserver.Config
	fs := newFlagSet("serve", env, "serve [flags]\n\nRuns the built-in target server on loopback until interrupted.")
	demoserver.RegisterFlags(fs, &cfg)
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(rest) > 0 {
		return withCode(ExitUsage, fmt.Errorf("serve: unexpected argument %q", rest[0]))
	}
	if cfg, err = demoserver.CheckFlags(cfg); err != nil {
		return withCode(ExitUsage, err)
	}
	srv, err := demoserver.Start(ctx, cfg)
	if err != nil {
		return withCode(ExitRun, err)
	}
	fmt.Fprintf(env.Stdout, "loadgate serve: http://%s/ (Ctrl-C to stop)\n", srv.HTTPAddr())
	if a := srv.TCPAddr(); a != "" {
		fmt.Fprintf(env.Stdout, "loadgate serve: framed TCP on %s\n", a)
	}
	if cfg.TCPStore != "" {
		fmt.Fprintf(env.Stdout, "loadgate serve: storing its monitor messages in Redis at %s\n", cfg.TCPStore)
	}
	if a := srv.HTTPSAddr(); a != "" {
		fmt.Fprintf(env.Stdout, "loadgate serve: https://%s/\n", a)
	}
	if a := srv.GRPCAddr(); a != "" {
		fmt.Fprintf(env.Stdout, "loadgate serve: gRPC on %s\n", a)
	}
	<-ctx.Done()
	return srv.Close()
}

// demoScenario is the bundled demo; testdata/scenarios/demo.yaml is the same
// file, kept identical by a test, so it can be read and run on its own.
//
//go:embed demo.yaml
var demoScenario []byte

func demoCommand(ctx context.Context, args []string, env Env) error {
	opts := runOptions{announce: "demo"}
	fs := newFlagSet("demo", env, "demo [flags]\n\nStarts the built-in server on a free loopback port, runs the bundled demo scenario against it\nand ends with a line naming the reports it wrote, by absolute path.")
	opts.register(fs, env)
	if rest, err := parseInterleaved(fs, args); err != nil {
		return silentUsage(err)
	} else if len(rest) > 0 {
		return withCode(ExitUsage, fmt.Errorf("demo takes no scenario, got %q", rest))
	}
	human, err := opts.humanOutput(env)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	srv, err := demoserver.Start(ctx, demoserver.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		return withCode(ExitRun, fmt.Errorf("demo server: %w", err))
	}
	defer srv.Close()
	fmt.Fprintf(human, "loadgate demo: built-in server on http://%s/\n", srv.HTTPAddr())
	host, port, _ := net.SplitHostPort(srv.HTTPAddr())
	vars := map[string]string{"host": net.JoinHostPort(host, port)}
	for k, v := range opts.vars {
		vars[k] = v
	}
	sc, err := scenarios.Parse("demo.yaml", demoScenario, scenarios.LoadOptions{Vars: vars, SecretVars: opts.secretVars, LookupEnv: env.LookupEnv})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	p, err := compilePlan(sc)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	return execute(ctx, []plan{p}, opts, env)
}
