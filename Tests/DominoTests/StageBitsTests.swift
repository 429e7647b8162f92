@testable import Domino
import Testing

/// The stage bits that walks without a lock make from a node's published mode word.
@Suite("Stage bits")
struct StageBitsTests {
    @Test func aStageMadeThroughTheModeBitsOfItsWalkEqualsOneMadeByTestingItsModeWord() {
        let node = DominoNode(label: "stage")
        let table = HandlerTable(of: node)
        let handlers = Unmanaged.passUnretained(table)
        for defaultCode in UInt(1)...3 {
            for traceAll in [false, true] {
                let modeBits = Stage.publishedModeBits(defaultCode: defaultCode, traceAll: traceAll)
                // Words 0 to 7: every word a walk without a lock goes on from.
                for modeWord in UInt32(0)..<8 {
                    for position in [1, 2, 11, 1_000_000] {
                        let tested = Stage(published: handlers, modeWord: modeWord, defaultCode: defaultCode, traceAll: traceAll, position: position)
                        let looked = Stage(published: handlers, modeBits: modeBits, modeWord: modeWord, position: position)
                        #expect(looked.bits == tested.bits, "word \(modeWord), default \(defaultCode), traceAll \(traceAll), position \(position)")
                    }
                }
            }
        }
        withExtendedLifetime(table) {}
    }
}
