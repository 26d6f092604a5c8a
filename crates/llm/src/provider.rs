//! The [`VlmProvider`] trait: what every model API client offers.

use async_trait::async_trait;

use crate::MessageRequest;
use crate::MessageResponse;
use crate::VlmError;
use crate::catalog;
use crate::catalog::ImageLimits;
use crate::catalog::ModelProvider;
use crate::catalog::ProfileOverrides;
use crate::pricing::Pricing;

/// A vision-language model behind some API.
///
/// One required call: send a request, get the whole answer (no streaming). Implementations
/// map vendor errors onto [`VlmError`] so that [`crate::RetryingProvider`] can decide what
/// to retry; they do not retry themselves.
#[async_trait]
pub trait VlmProvider: Send + Sync {
    /// Sends one request and returns the model's answer.
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError>;

    /// The model id requests are sent with (`claude-sonnet-4-5`, `qwen2.5-vl-7b`...).
    fn model_id(&self) -> &str;

    /// Prices for this model, when known, for cost estimates.
    fn pricing(&self) -> Option<Pricing> {
        None
    }

    /// The image sizes this model takes (the catalogue's row for [`Self::model_id`], or the
    /// limits assumed for an unknown model on an OpenAI-compatible server). Clients of an API
    /// with its own limits override this.
    fn image_limits(&self) -> ImageLimits {
        catalog::profile(
            ModelProvider::OpenaiCompatible,
            self.model_id(),
            ProfileOverrides::default(),
        )
        .images
    }
}

#[async_trait]
impl<P: VlmProvider + ?Sized> VlmProvider for std::sync::Arc<P> {
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError> {
        (**self).create_message(request).await
    }

    fn model_id(&self) -> &str {
        (**self).model_id()
    }

    fn pricing(&self) -> Option<Pricing> {
        (**self).pricing()
    }

    fn image_limits(&self) -> ImageLimits {
        (**self).image_limits()
    }
}

#[async_trait]
impl<P: VlmProvider + ?Sized> VlmProvider for Box<P> {
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError> {
        (**self).create_message(request).await
    }

    fn model_id(&self) -> &str {
        (**self).model_id()
    }

    fn pricing(&self) -> Option<Pricing> {
        (**self).pricing()
    }

    fn image_limits(&self) -> ImageLimits {
        (**self).image_limits()
    }
}
