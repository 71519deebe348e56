"""A model run recorded by agents-testing: review it, then edit it like any script.

2 model calls. STEPS holds the step each call got, REQUESTS what
each call sent. Replay it with agents_testing.Replay.load(this file); record it
again with pytest --agents-testing-record.

Redacted (each secret replaced with '[REDACTED]'):
- the authorization header: never recorded (sent with 2 requests)
"""

from agents_testing import (
    ModelResponse,
    Usage,
    assistant_message,
    function_call,
    model_response,
)

STEPS = [
    # call #1: POST /v1/responses (openai.responses, not streamed, HTTP 200)
    model_response(
        ModelResponse(
            [
                function_call("get_weather", {"city": "Tokyo"}, call_id="call_1"),
            ],
            Usage(input_tokens=0, output_tokens=0),
            response_id="resp_scripted_1",
        ),
    ),
    # call #2: POST /v1/responses (openai.responses, not streamed, HTTP 200)
    model_response(
        ModelResponse(
            [
                assistant_message("It is sunny in Tokyo.", id="msg_scripted_2_0"),
            ],
            Usage(input_tokens=0, output_tokens=0),
            response_id="resp_scripted_2",
        ),
    ),
]

REQUESTS = [
    # call #1
    {
        "method": "POST",
        "path": "/v1/responses",
        "wire_format": "openai.responses",
        "body": {
            "model": "gpt-4.1",
            "input": [{"role": "user", "content": "Weather in Tokyo?"}],
            "instructions": "Report the weather.",
            "tools": [
                {
                    "type": "function",
                    "name": "get_weather",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                    },
                    "strict": None,
                },
            ],
        },
    },
    # call #2
    {
        "method": "POST",
        "path": "/v1/responses",
        "wire_format": "openai.responses",
        "body": {
            "model": "gpt-4.1",
            "input": [
                {"role": "user", "content": "Weather in Tokyo?"},
                {
                    "arguments": '{"city":"Tokyo"}',
                    "call_id": "call_1",
                    "name": "get_weather",
                    "type": "function_call",
                    "id": "call_1",
                    "status": "completed",
                },
                {
                    "type": "function_call_output",
                    "call_id": "call_1",
                    "output": "Tokyo: sunny",
                },
            ],
            "instructions": "Report the weather.",
            "tools": [
                {
                    "type": "function",
                    "name": "get_weather",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                    },
                    "strict": None,
                },
            ],
        },
    },
]
