"""Runs Apple's App Store Server Library (app-store-server-library, PyPI) on signed data for the Swift
test suite (Tests/StoreEngineTests/AppleLibraryTests.swift).

stdin: {"cases": [{"label", "kind": transaction|renewalInfo|appTransaction|notification, "jws",
                    "root": base64 DER, "environment": "Sandbox"|..., "bundleId", "appAppleId": int|null}]}
stdout: {"library": version, "results": [{"label", "status": "OK" or a VerificationStatus name, "cause",
                                          "unknownEnums": [...], "unknownFields": [...]}]}

Each case gets its own SignedDataVerifier in the library's default offline mode
(enable_online_checks=False): exactly what a backend configured with the root would do.
"""
import base64
import json
import sys
from importlib.metadata import version

import attr
import jwt
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.LibraryUtility import metadata_key, metadata_type_key
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException


def unknown_enums(model, path=""):
    """Raw values the library could not map to its enums (a model's rawX set while X is None), recursively."""
    found = []
    if not attr.has(type(model)):
        return found
    for field in attr.fields(type(model)):
        value = getattr(model, field.name)
        if field.metadata.get(metadata_type_key) == "raw":
            if value is not None and getattr(model, field.metadata[metadata_key]) is None:
                found.append(f"{path}{field.metadata[metadata_key]}={value!r}")
        elif attr.has(type(value)):
            found += unknown_enums(value, f"{path}{field.name}.")
    return found


def unknown_fields(model, payload):
    """Payload keys the model has no field for (the library drops them silently)."""
    names = {field.metadata.get(metadata_key, field.name) if field.metadata.get(metadata_type_key) == "raw" else field.name
             for field in attr.fields(type(model))}
    return sorted(key for key in payload if key not in names)


def run(case):
    result = {"label": case["label"], "status": "OK", "cause": None, "unknownEnums": [], "unknownFields": []}
    try:
        verifier = SignedDataVerifier([base64.b64decode(case["root"])], False, Environment(case["environment"]),
                                      case["bundleId"], case.get("appAppleId"))
        decode = {
            "transaction": verifier.verify_and_decode_signed_transaction,
            "renewalInfo": verifier.verify_and_decode_renewal_info,
            "appTransaction": verifier.verify_and_decode_app_transaction,
            "notification": verifier.verify_and_decode_notification,
        }[case["kind"]]
        model = decode(case["jws"])
        result["unknownEnums"] = unknown_enums(model)
        result["unknownFields"] = unknown_fields(model, jwt.decode(case["jws"], options={"verify_signature": False}))
    except VerificationException as error:
        result["status"] = error.status.name
        result["cause"] = repr(error.__cause__) if error.__cause__ else None
    except Exception as error:  # a decoding failure is a finding, not a crash of the suite
        result["status"] = "ERROR"
        result["cause"] = repr(error)
    return result


def main():
    request = json.load(sys.stdin)
    json.dump({"library": version("app-store-server-library"), "results": [run(case) for case in request["cases"]]}, sys.stdout)


if __name__ == "__main__":
    main()
