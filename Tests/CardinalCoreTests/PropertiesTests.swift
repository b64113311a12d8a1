import Testing
@testable import CardinalCore

@Suite struct PropertiesTests {
    /// A properties object whose compact JSON is exactly `bytes` long: `{"k":"xxx…"}` is 8 bytes plus the x's.
    static func properties(bytes: Int) -> String {
        #"{"k":""# + String(repeating: "x", count: bytes - 8) + #""}"#
    }

    @Test("Properties are stored as compact JSON with member order and number text kept")
    func compactProperties() throws {
        let event = try #require(Fixture.accepted(.impression.with("properties",
            #"{ "z": 1.10, "a": { "nested": [true, null, "é\n"] }, "big": 12345678901234567890 }"#)))
        #expect(event.propertiesJSON == #"{"z":1.10,"a":{"nested":[true,null,"é\n"]},"big":12345678901234567890}"#)
    }

    @Test("Properties are accepted at the byte limit and properties_too_large one byte past it")
    func sizeLimit() throws {
        let atLimit = try #require(Fixture.accepted(.impression.with("properties", Self.properties(bytes: 16_384))))
        #expect(atLimit.propertiesJSON?.utf8.count == 16_384)
        let rejection = try #require(Fixture.rejected(.impression.with("properties", Self.properties(bytes: 16_385))))
        #expect(rejection.code == .propertiesTooLarge)
        #expect(rejection.message == #"field "properties" is 16385 bytes as compact JSON; the limit is 16384"#)
    }

    @Test("The size is measured on compact JSON, so whitespace in the request does not count")
    func whitespaceDoesNotCount() {
        let padded = "{" + String(repeating: " ", count: 100) + #""k":"x"}"#
        let policy = ValidationPolicy(maxPropertiesBytes: 9)
        #expect(Fixture.accepted(.impression.with("properties", padded), policy: policy)?.propertiesJSON == #"{"k":"x"}"#)
    }

    @Test("The byte limit comes from the policy")
    func configurableLimit() {
        let policy = ValidationPolicy(maxPropertiesBytes: 64)
        #expect(Fixture.rejected(.impression.with("properties", Self.properties(bytes: 65)), policy: policy)?.code
            == .propertiesTooLarge)
        #expect(Fixture.accepted(.impression.with("properties", Self.properties(bytes: 64)), policy: policy) != nil)
    }

    @Test("Properties that are not an object are invalid_type", arguments: ["[1]", #""a=b""#, "3"])
    func notAnObject(json: String) {
        #expect(Fixture.rejected(.impression.with("properties", json))?.code == .invalidType)
    }

    @Test("Properties that PostgreSQL could not store are invalid_value",
          arguments: [#"{"a":"x\u0000"}"#, #"{"a\u0000":1}"#, #"{"a":[1e131072]}"#, #"{"a":-2E-16384}"#,
                      #"{"a":0.0e-16383}"#, #"{"a":0e1073741823}"#])
    func unstorableProperties(json: String) {
        #expect(Fixture.rejected(.impression.with("properties", json))?.code == .invalidValue)
    }

    @Test("Numbers at the edges of numeric are kept as written",
          arguments: [#"{"a":1e1000}"#, #"{"a":1e131071}"#, #"{"a":10e131070}"#, #"{"a":0.1e131072}"#,
                      #"{"a":1.0e-16382}"#, #"{"a":0e200000}"#, #"{"a":-1E-16383}"#])
    func storableEdges(json: String) {
        #expect(Fixture.accepted(.impression.with("properties", json))?.propertiesJSON == json)
    }

    @Test("A number with 16 384 digits after the point once its exponent applies is invalid_value, 16 383 is kept")
    func scaleCountsFractionDigitsAndExponent() throws {
        // 0.<15 382 zeros>1e-1000 has 15 383 + 1000 = 16 383 digits after the point; one zero more is too many.
        let storable = "0." + String(repeating: "0", count: 15_382) + "1e-1000"
        #expect(Fixture.accepted(.impression.with("properties", #"{"a":\#(storable)}"#)) != nil)
        let rejection = try #require(Fixture.rejected(.impression.with("properties", #"{"a":0\#(storable)}"#.replacingOccurrences(of: ":00.", with: ":0.0"))))
        #expect(rejection.code == .invalidValue)
        #expect(rejection.message.contains("more than 16383 digits after the decimal point"))
    }
}
