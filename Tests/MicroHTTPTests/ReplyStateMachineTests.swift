@testable import MicroHTTP
import Testing

@Suite struct ReplyStateMachineTests {
    private let response = HTTPResponse.text(200, "ok")

    @Test("A response given while the handler runs is queued when it returns, without suspending")
    func answeredWhileHandling() {
        var machine = ReplyStateMachine<HTTPResponse>()
        var asked = false

        let result1 = machine.respond(response)
        #expect(result1 == .store)
        let action = machine.handlerReturned { asked = true; return true }

        guard case .queue(let queued) = action else { Issue.record("expected queue, got \(action)"); return }
        #expect(queued.body == response.body)
        #expect(!asked)
        let result2 = machine.respond(response)
        #expect(result2 == .ignore)
    }

    @Test("A handler that returns unanswered suspends, and the later response resumes and is queued")
    func suspendThenRespond() {
        var machine = ReplyStateMachine<HTTPResponse>()

        guard case .suspend = machine.handlerReturned(mayStaySuspended: { true }) else {
            Issue.record("expected suspend"); return
        }
        let result3 = machine.respond(response)
        #expect(result3 == .resume)
        let result4 = machine.respond(response)
        #expect(result4 == .ignore)
        let result5 = machine.abandon()
        #expect(!result5)
        guard case .queue = machine.resumed() else { Issue.record("expected queue"); return }
        let result6 = machine.respond(response)
        #expect(result6 == .ignore)
    }

    @Test("A handler returning while the server stops closes the connection instead of suspending")
    func refusedSuspension() {
        var machine = ReplyStateMachine<HTTPResponse>()

        guard case .close = machine.handlerReturned(mayStaySuspended: { false }) else {
            Issue.record("expected close"); return
        }
        let result7 = machine.respond(response)
        #expect(result7 == .ignore)
    }

    @Test("Stopping resumes a suspended request without a response and later responses are dropped")
    func abandoned() {
        var machine = ReplyStateMachine<HTTPResponse>()
        _ = machine.handlerReturned { true }

        let result8 = machine.abandon()
        #expect(result8)
        let result9 = machine.abandon()
        #expect(!result9)
        let result10 = machine.respond(response)
        #expect(result10 == .ignore)
        guard case .close = machine.resumed() else { Issue.record("expected close"); return }
    }

    @Test("After the connection closed every response is ignored")
    func closed() {
        var machine = ReplyStateMachine<HTTPResponse>()
        _ = machine.handlerReturned { true }

        machine.connectionClosed()

        let result11 = machine.respond(response)
        #expect(result11 == .ignore)
        let result12 = machine.abandon()
        #expect(!result12)
    }
}
