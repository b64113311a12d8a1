import MicroHTTP
import Synchronization
import Testing

@Suite struct HTTPResponderTests {
    @Test("A capturing responder hands over the first response only")
    func firstResponseOnly() {
        let captured = Mutex<[Int]>([])
        let responder = HTTPResponder(capturingInto: { response in captured.withLock { $0.append(response.status) } })

        responder.respond(.text(202, "accepted"))
        responder.respond(.text(500, "late"))

        #expect(captured.withLock { $0 } == [202])
    }
}
