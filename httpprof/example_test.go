package httpprof_test

import (
	"context"
	"log"
	"net/http"

	"github.com/orprof/orprof"
	"github.com/orprof/orprof/httpprof"
)

// Mount the capture handler on a mux served on loopback only, and mark the loop's steps; then
//
//	curl -o step.json 'http://127.0.0.1:6060/debug/orprof/trace?steps=5'
//	curl 'http://127.0.0.1:6060/debug/orprof/table?steps=5&sort_by=self_cpu_time_total&row_limit=10'
func ExampleHandler() {
	p, err := orprof.NewProfiler(orprof.ProfilerOptions{Options: orprof.Options{Device: "openreg"}})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(httpprof.Prefix, httpprof.Handler(p))
	go func() { log.Println(http.ListenAndServe("127.0.0.1:6060", mux)) }()

	ctx := orprof.WithThread(context.Background(), orprof.NewThread())
	if err := p.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer p.Stop()
	for {
		// ... one iteration of the program's work ...
		if err := p.Step(ctx); err != nil {
			log.Println(err)
		}
	}
}
