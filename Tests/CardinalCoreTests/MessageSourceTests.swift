import Testing
@testable import CardinalCore

@Suite struct MessageSourceTests {
    static let canvas = EventJSON.impression.without("campaign_id")
        .with("canvas_id", #""canvas-1""#).with("canvas_step_id", #""step-2""#)

    @Test("A canvas id with its step id is a canvas source")
    func canvasSource() throws {
        let event = try #require(Fixture.accepted(Self.canvas))
        #expect(event.source == .canvas(id: "canvas-1", stepID: "step-2"))
        #expect(event.source?.canvasID == "canvas-1" && event.source?.canvasStepID == "step-2")
        #expect(event.source?.campaignID == nil)
    }

    @Test("A campaign together with a canvas id or a step id is conflicting_source",
          arguments: ["canvas_id", "canvas_step_id"])
    func conflictingSource(field: String) throws {
        let rejection = try #require(Fixture.rejected(.impression.with(field, #""x""#)))
        #expect(rejection.code == .conflictingSource)
        #expect(rejection.message.contains("\"campaign_id\" and \"\(field)\""))
    }

    @Test("A canvas id without its step id is missing_field naming the step")
    func canvasWithoutStep() throws {
        let rejection = try #require(Fixture.rejected(Self.canvas.without("canvas_step_id")))
        #expect(rejection.code == .missingField)
        #expect(rejection.message == #"field "canvas_step_id" is required with "canvas_id""#)
    }

    @Test("A step id without its canvas id is missing_field naming the canvas")
    func stepWithoutCanvas() throws {
        let rejection = try #require(Fixture.rejected(Self.canvas.without("canvas_id")))
        #expect(rejection.code == .missingField)
        #expect(rejection.message == #"field "canvas_id" is required with "canvas_step_id""#)
    }

    @Test("Every type but conversion needs a message source", arguments: [EventType.send, .impression, .click, .dismissal])
    func sourceRequired(type: EventType) throws {
        let rejection = try #require(Fixture.rejected(.of(type).without("campaign_id")))
        #expect(rejection.code == .missingField)
        #expect(rejection.message.hasPrefix(#"one of "campaign_id" or "canvas_id" with "canvas_step_id" is required"#))
    }

    @Test("A conversion may carry no source, a campaign or a canvas step")
    func conversionSources() throws {
        #expect(Fixture.accepted(.of(.conversion))?.source == nil)
        #expect(Fixture.accepted(.of(.conversion).with("campaign_id", #""c""#))?.source == .campaign("c"))
        let canvas = EventJSON.of(.conversion).with("canvas_id", #""cv""#).with("canvas_step_id", #""st""#)
        #expect(Fixture.accepted(canvas)?.source == .canvas(id: "cv", stepID: "st"))
        #expect(Fixture.rejected(.of(.conversion).with("campaign_id", #""c""#).with("canvas_id", #""cv""#))?.code
            == .conflictingSource)
    }

    @Test("An empty campaign id is invalid_value rather than a missing source")
    func emptyCampaign() {
        #expect(Fixture.rejected(.impression.with("campaign_id", #""""#))?.code == .invalidValue)
    }
}
