module github.com/modex/modex/benchmarks/porcupine

go 1.22

require github.com/anishathalye/porcupine v1.3.1
