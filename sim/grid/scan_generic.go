//go:build !(goexperiment.simd && amd64)

package grid

// scanSlack is the room the scan needs in its buffer past the candidates.
const scanSlack = 1

// scanner is the neighbour search's candidate test; without SIMD it is scanRows.
type scanner struct{}

func newScanner() scanner { return scanner{} }

func scalarScanner() scanner { return scanner{} }

func (scanner) scan(pos [][4]float32, rows [][2]int32, self int32, r2 float32, buf []int32) int {
	return scanRows(pos, rows, self, r2, buf)
}
